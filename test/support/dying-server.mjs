// The everything server, dying one second after it starts: a server that fails mid-call.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const entry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
setTimeout(() => process.exit(1), 1000);
await import(pathToFileURL(entry).href);
