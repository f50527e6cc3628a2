/**
 * The proxy under load: 200 concurrent streaming requests from a client in its own process,
 * straight to the replay model and through `tagcall serve`'s proxy, same reply both ways.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { renderCall, startProxy, startReplayModel } from 'tagcall';

const LOAD_CLIENT = fileURLToPath(new URL('../test/support/load-client.mjs', import.meta.url));
const CONCURRENT = 200;

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

const load = (url: string, spec: object) =>
  new Promise<LoadFigures>((resolve, reject) =>
    execFile(
      process.execPath,
      [LOAD_CLIENT, url, String(CONCURRENT), JSON.stringify(spec)],
      (error, stdout) => (error ? reject(error) : resolve(JSON.parse(stdout) as LoadFigures)),
    ),
  );

export async function runProxyLoad(): Promise<{
  direct: LoadFigures;
  proxy: LoadFigures;
  rssMiB: number;
}> {
  const content = 'Some text to write.\n'.repeat(500);
  const reply = `[Writing the file]\nWriting it now.\n${renderCall({ toolName: 'write_file', arguments: { path: 'notes.md', content } })}\n`;
  const model = await startReplayModel({ replies: [reply], chunkSizes: [16, 24, 9, 31] });
  const proxy = await startProxy({ upstream: model.url });
  const messages = [{ role: 'user', content: 'Write the notes.' }];
  const tools = [
    {
      type: 'function',
      function: {
        name: 'write_file',
        parameters: {
          type: 'object',
          properties: { path: { type: 'string' }, content: { type: 'string' } },
        },
      },
    },
  ];
  try {
    const direct = { request: { model: 'replay', messages } };
    const viaProxy = {
      request: { model: 'replay', messages, tools },
      expectArguments: { path: 'notes.md', content },
    };
    // Warm-up rounds, then the measured ones.
    await load(model.url, direct);
    await load(proxy.url, viaProxy);
    model.bodies.length = 0;
    const figures = {
      direct: await load(model.url, direct),
      proxy: await load(proxy.url, viaProxy),
    };
    return { ...figures, rssMiB: process.memoryUsage().rss / 2 ** 20 };
  } finally {
    await proxy.close();
    await model.close();
  }
}
