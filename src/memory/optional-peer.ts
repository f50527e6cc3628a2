import { execFileSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether `error` is an import's failure to find the package `name` itself (not one it imports). */
export const isMissingPackage = (error: unknown, name: string): boolean =>
  (error as { code?: string }).code === 'ERR_MODULE_NOT_FOUND' &&
  String((error as Error).message).includes(`'${name}'`);

/** tagcall's own folder: this file is dist/memory/optional-peer.js (src/memory/ in tests). */
const OWN_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** `npm prefix -g`: where a plain `npm i -g` installs; null when npm cannot be asked. */
function globalPrefix(): string | null {
  try {
    return execFileSync('npm', ['prefix', '-g'], {
      encoding: 'utf8',
      timeout: 10_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return null;
  }
}

/** `word` as one shell word. */
const shellWord = (word: string): string =>
  /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;

/**
 * The command that installs `peer` where tagcall itself is installed, so that tagcall's import
 * finds it: a package resolves its imports from its own node_modules chain, so after
 * `npm i -g tagcall` only `npm i -g` into the same prefix helps (`npm i` in a project does
 * not). A global install is `PREFIX/lib/node_modules/tagcall` (`PREFIX/node_modules/tagcall`
 * on Windows) with no package.json above node_modules; a project's has one.
 */
export function peerInstallCommand(peer: string, root = OWN_ROOT): string {
  const modules = dirname(resolve(root));
  if (basename(modules) !== 'node_modules') return `npm i ${peer}`;
  const above = dirname(modules);
  if (existsSync(join(above, 'package.json'))) return `npm i ${peer}`;
  const prefix = basename(above) === 'lib' ? dirname(above) : above;
  const npmPrefix = globalPrefix();
  const same =
    npmPrefix !== null && existsSync(npmPrefix) && realpathSync(npmPrefix) === realpathSync(prefix);
  return same ? `npm i -g ${peer}` : `npm i -g --prefix ${shellWord(prefix)} ${peer}`;
}

/** The error for an optional peer that is not installed: what needs it, and the command. */
/** An optional peer dependency a part needs is not installed; the message says how to add it. */
export class MissingPeerError extends Error {
  override name = 'MissingPeerError';
}

export function missingPeerError(user: string, peer: string): MissingPeerError {
  return new MissingPeerError(
    `${user} ${peer}, an optional peer dependency that is not installed: ${peerInstallCommand(peer)}`,
  );
}
