// Preloaded into servers under test that listen on every interface: binds them to 127.0.0.1.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  if (typeof args[0] === 'number' || typeof args[0] === 'string') {
    const [port, ...rest] = args;
    const host = typeof rest[0] === 'string' ? rest.shift() : '127.0.0.1';
    return listen.call(
      this,
      port,
      host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host,
      ...rest,
    );
  }
  return listen.apply(this, args);
};
