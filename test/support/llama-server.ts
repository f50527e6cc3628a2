// A real llama-server for the tests: the binary test/support/build-llama-server.sh builds
// once per machine from the llama.cpp source node-llama-cpp bundles, started on 127.0.0.1 (a
// free port) on a tiny random-weight model.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { access, constants } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { freePort } from './free-port.js';

const BUILD_SCRIPT = fileURLToPath(new URL('./build-llama-server.sh', import.meta.url));

/** The built binary's path, or why there is none (the test then says so and skips). */
export async function llamaServerBinary(): Promise<{ path: string } | { missing: string }> {
  let path: string;
  try {
    path = execFileSync(BUILD_SCRIPT, ['--print-path'], { encoding: 'utf8' }).trim();
  } catch (error) {
    return { missing: `test/support/build-llama-server.sh failed: ${(error as Error).message}` };
  }
  try {
    await access(path, constants.X_OK);
    return { path };
  } catch {
    return {
      missing: `llama-server is not built (${path}): run test/support/build-llama-server.sh (about 15 minutes on 2 cores; .ci/run does)`,
    };
  }
}

export interface RunningLlamaServer {
  origin: string;
  /** What the server wrote (for a failure's message). */
  log: () => string;
  close(): Promise<void>;
}

/**
 * Starts `binary` on `model` (one slot, one thread, ChatML as the chat template: the tiny
 * model has none) and waits until `/health` answers 200, at most `timeoutMs`.
 */
export async function startLlamaServer(
  binary: string,
  model: string,
  timeoutMs = 120_000,
): Promise<RunningLlamaServer> {
  const port = await freePort();
  const child: ChildProcess = spawn(
    binary,
    [
      '-m',
      model,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      // The tiny vocabulary writes most of the tool prompt byte by byte: a long prompt.
      '-c',
      '16384',
      '-np',
      '1',
      '-t',
      '1',
      '--chat-template',
      'chatml',
      '--no-webui',
      '--no-warmup',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let exited: number | null | undefined;
  const exit = new Promise<void>((resolve) =>
    child.once('exit', (code) => {
      exited = code;
      resolve();
    }),
  );
  const origin = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (exited === undefined) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exit;
      clearTimeout(timer);
    }
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited !== undefined) throw new Error(`llama-server exited (${exited}):\n${log}`);
    const ok = await fetch(`${origin}/health`, { signal: AbortSignal.timeout(5_000) })
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) break;
    if (Date.now() > deadline) {
      await close();
      throw new Error(`llama-server did not become ready in ${timeoutMs} ms:\n${log}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { origin, log: () => log, close };
}
