// The everything server, dying once a tool call has reached it: a server that fails mid-call.
// (It died one second after its start, which on a busy machine came before it had answered
// initialize.) Listening after the import: a listener before the server's own would read
// initialize while nobody else was.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const require = createRequire(import.meta.url);
const entry = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
await import(pathToFileURL(entry).href);
process.stdin.on('data', (chunk) => {
  if (String(chunk).includes('"tools/call"')) setTimeout(() => process.exit(1), 100);
});
