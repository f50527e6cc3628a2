// The `tagcall` CLI from the sources (through tsx) as a child process, for tests that run it
// as a user does: to its exit, or as a server until it says where it listens.
import { type ChildProcessByStdio, spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runChild } from './run-child.js';

/** The repository's root, where the children run unless a test names another folder. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** tsx by its file URL and main.ts by its full path: a child started in any folder finds them. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const TAGCALL = ['--import', TSX, join(ROOT, 'src/cli/main.ts')];

/** `tagcall ARGS` run in `cwd` to its exit: its exit code and output. */
export function runTagcall(args: string[], cwd = ROOT) {
  return runChild(process.execPath, [...TAGCALL, ...args], cwd);
}

/**
 * The flags of `tagcall run` against the model server at `baseUrl` under the model name
 * `replay` (what the replay model answers to), working in `workspace`.
 */
export const replayRunFlags = (baseUrl: string, workspace: string) => [
  '--base-url',
  baseUrl,
  '--model',
  'replay',
  '--workspace',
  workspace,
];

export interface TagcallServer {
  child: ChildProcessByStdio<null, null, Readable>;
  /** The URL from its `listening on URL` line. */
  url: string;
  /** All it has written to stderr so far. */
  stderr(): string;
}

/**
 * `tagcall serve …` (or `replay …`) started in the repository's root, once it has said
 * `listening on URL` on stderr; rejects with its stderr if it exits before.
 */
export async function startTagcallServer(args: string[]): Promise<TagcallServer> {
  const child = spawn(process.execPath, [...TAGCALL, ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (data: Buffer) => {
      stderr += data;
      const match = /listening on (\S+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.on('exit', () => reject(new Error(stderr)));
  });
  return { child, url, stderr: () => stderr };
}
