import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { renderCall } from './all.js';

/** The proxy load (test and bench): every reply writes one file of 10 KB through a call. */
const content = 'Some text to write.\n'.repeat(500);
export const LOAD_REPLY = `[Writing the file]\nWriting it now.\n${renderCall({ toolName: 'write_file', arguments: { path: 'notes.md', content } })}\n`;
export const LOAD_CHUNK_SIZES = [16, 24, 9, 31];
const messages = [{ role: 'user', content: 'Write the notes.' }];
const tools = [
  {
    type: 'function',
    function: {
      name: 'write_file',
      parameters: {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      },
    },
  },
];
/** A request with the tool (for the proxy), and the arguments every answer must carry. */
export const VIA_PROXY = {
  request: { model: 'replay', messages, tools },
  expectArguments: { path: 'notes.md', content },
};
/** The same request without tools, as the model server itself is asked. */
export const DIRECT = { request: { model: 'replay', messages } };

export interface LoadFigures {
  completed: number;
  valid: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  firstByteP99Ms: number;
  perChunkP99Ms: number;
  chunks: number;
}

const LOAD_CLIENT = fileURLToPath(new URL('./load-client.mjs', import.meta.url));

/** Runs the load client in its own process, so what the caller measures is the servers' alone. */
export const runLoadClient = (url: string, concurrency: number, spec: object) =>
  new Promise<LoadFigures>((resolve, reject) =>
    execFile(
      process.execPath,
      [LOAD_CLIENT, url, String(concurrency), JSON.stringify(spec)],
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as LoadFigures)),
    ),
  );
