import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { renderCall, startProxy, startReplayModel } from '../src/index.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const LOAD_CLIENT = fileURLToPath(new URL('./support/load-client.mjs', import.meta.url));
const CONCURRENT = 200;
const content = 'Some text to write.\n'.repeat(500); // 10 KB of argument per call
const reply = `[Writing the file]\nWriting it now.\n${renderCall({ toolName: 'write_file', arguments: { path: 'notes.md', content } })}\n`;
const spec = {
  request: {
    model: 'replay',
    messages: [{ role: 'user', content: 'Write the notes.' }],
    tools: [
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
    ],
  },
  expectArguments: { path: 'notes.md', content },
};

/** Runs the load client in its own process: the heap measured here is the servers' alone. */
const load = (url: string, concurrency: number) =>
  new Promise<{ completed: number; valid: number }>((resolve, reject) =>
    execFile(
      process.execPath,
      [LOAD_CLIENT, url, String(concurrency), JSON.stringify(spec)],
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout))),
    ),
  );

describe('proxy under load (bounded)', () => {
  it(`${CONCURRENT} concurrent streams all complete with valid arguments; the heap goes back down`, async () => {
    const model = await startReplayModel({ replies: [reply], chunkSizes: [16, 24, 9, 31] });
    const proxy = await startProxy({ upstream: model.url });
    try {
      const round = async () => {
        expect(await load(proxy.url, CONCURRENT)).toEqual(
          expect.objectContaining({ completed: CONCURRENT, valid: CONCURRENT }),
        );
        model.bodies.length = 0; // the replay server's record of requests, not the proxy's memory
      };
      // The first round at full concurrency grows the connection pools (about 1.5 MB, kept
      // while their sockets live); the baseline is taken after it.
      await round();
      const baseline = heapAfterGc();
      await round();
      await round();
      // 400 more streams of 10 KB each: keeping even one copy of each would be 4 MB and more.
      expect(heapAfterGc() - baseline).toBeLessThan(1024 * 1024);
    } finally {
      await proxy.close();
      await model.close();
    }
  });
});
