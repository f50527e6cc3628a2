import { constants, type Stats } from 'node:fs';
import { type FileHandle, lstat, mkdir, open, realpath, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve, sep } from 'node:path';

/**
 * Files a model may touch, confined to a workspace by real paths: symbolic links (the file's
 * and every parent's) are resolved before the check, a path that does not exist yet is checked
 * through its deepest existing parent, and each file is opened without following a link in its
 * last component and then checked again by identity (device and inode), so a link swapped in
 * between the check and the open is caught. What is refused throws `WorkspaceError`, whose
 * message is meant for the model.
 */
export class WorkspaceError extends Error {}

const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO opened for reading blocks until a writer comes; non-blocking, it opens at once and
// the regular-file check refuses it.
const NON_BLOCK = constants.O_NONBLOCK ?? 0;

const within = (root: string, real: string) => real === root || real.startsWith(root + sep);

async function rootOf(workspace: string): Promise<string> {
  try {
    return await realpath(resolve(workspace));
  } catch {
    throw new WorkspaceError(`the workspace ${workspace} does not exist`);
  }
}

const outside = (path: string) =>
  new WorkspaceError(`${JSON.stringify(path)} is outside the workspace; use a path relative to it`);

const missing = (code: string | undefined) => code === 'ENOENT' || code === 'ENOTDIR';

/**
 * The real path `path` names inside the workspace, links resolved; for a path that does not
 * exist yet, its deepest existing parent's real path (`existing`) with the rest (`missing`, the
 * names below it) appended. Throws `WorkspaceError` when it lands outside, or when a component
 * is a link to nowhere. The deepest existing parent is found by halving (whether a prefix
 * resolves only ever turns from yes to no going down), so a path of n missing levels costs
 * log n lookups, not n lookups of up to n components each.
 */
export async function resolveInWorkspace(
  workspace: string,
  path: string,
): Promise<{ root: string; real: string; exists: boolean; existing: string; missing: string[] }> {
  const root = await rootOf(workspace);
  const lexical = resolve(root, path);
  if (!within(root, lexical)) throw outside(path);
  const names = lexical === root ? [] : lexical.slice(root.length + 1).split(sep);
  const prefix = (count: number) => join(root, ...names.slice(0, count));
  const realOf = async (count: number): Promise<string | null> => {
    try {
      return await realpath(prefix(count));
    } catch (error) {
      if (missing((error as NodeJS.ErrnoException).code)) return null;
      throw error;
    }
  };
  // The root exists; find the longest prefix of `names` that resolves.
  let found = await realOf(names.length);
  let deepest = names.length;
  if (found === null) {
    let low = 0;
    let high = names.length - 1;
    found = root;
    while (low < high) {
      const middle = Math.ceil((low + high) / 2);
      const real = await realOf(middle);
      if (real === null) high = middle - 1;
      else {
        low = middle;
        found = real;
      }
    }
    deepest = low;
    // realpath fails on a dangling link too; lstat tells it from a name that is free. Only the
    // first missing name can be one: nothing below it exists.
    const link = await lstat(prefix(deepest + 1)).catch(() => null);
    if (link?.isSymbolicLink()) {
      throw new WorkspaceError(
        `${JSON.stringify(path)} goes through a symbolic link whose target does not exist`,
      );
    }
  }
  if (!within(root, found)) throw outside(path);
  const rest = names.slice(deepest);
  return {
    root,
    real: join(found, ...rest),
    exists: rest.length === 0,
    existing: found,
    missing: rest,
  };
}

/** Refuses an opened file that is not a regular file, or not the one at an inside path. */
async function checkOpened(
  root: string,
  path: string,
  handle: FileHandle,
  shown: string,
): Promise<Stats> {
  const opened = await handle.stat();
  if (!opened.isFile()) {
    throw new WorkspaceError(
      `${JSON.stringify(shown)} is not a regular file (a folder, device, FIFO or socket)`,
    );
  }
  const real = await realpath(path).catch(() => null);
  const there = real === null ? null : await stat(real).catch(() => null);
  if (
    real === null ||
    !within(root, real) ||
    there === null ||
    there.dev !== opened.dev ||
    there.ino !== opened.ino
  )
    throw outside(shown);
  return opened;
}

const PROC_FD = '/proc/self/fd';
const FOLDER_FLAGS = constants.O_RDONLY | constants.O_DIRECTORY | NO_FOLLOW;
const openAt = process.platform === 'linux';

/**
 * Runs `work` on a path to `name` inside `folder` that is resolved from the opened folder once
 * that folder is known to be the inside one (Linux: `/proc/self/fd/N/name` resolves from the
 * descriptor, as openat does), so a parent swapped for a link after the check cannot make even
 * an empty file or folder appear outside. Elsewhere the path is used as it is, and what was
 * opened is caught by the check after the open.
 */
async function inFolder<T>(
  root: string,
  folder: string,
  name: string,
  shown: string,
  work: (path: string) => Promise<T>,
): Promise<T> {
  if (!openAt) return await work(join(folder, name));
  const handle = await openCheckedFolder(root, folder, shown);
  try {
    return await work(`${PROC_FD}/${handle.fd}/${name}`);
  } finally {
    await handle.close();
  }
}

/** A folder opened (not through a link) and checked to be the inside one at `folder`. */
async function openCheckedFolder(root: string, folder: string, shown: string) {
  const handle = await open(folder, FOLDER_FLAGS).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOTDIR')
      throw new WorkspaceError(`${JSON.stringify(shown)}: ${folder} is not a folder`);
    return openError(error, shown);
  });
  try {
    const opened = await handle.stat();
    const real = await realpath(folder).catch(() => null);
    const there = real === null ? null : await stat(real).catch(() => null);
    if (
      real === null ||
      !within(root, real) ||
      there?.dev !== opened.dev ||
      there?.ino !== opened.ino
    )
      throw outside(shown);
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

const openInside = (root: string, real: string, flags: number, shown: string) =>
  inFolder(root, dirname(real), basename(real), shown, (path) =>
    open(path, flags, 0o666).catch((e) => openError(e, shown)),
  );

const openError = (error: unknown, shown: string): never => {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') throw new WorkspaceError(`${JSON.stringify(shown)} is a symbolic link`);
  if (code === 'ENOENT') throw new WorkspaceError(`${JSON.stringify(shown)} does not exist`);
  if (code === 'EISDIR') throw new WorkspaceError(`${JSON.stringify(shown)} is a folder`);
  throw error;
};

/**
 * Reads a regular file inside the workspace, at most `maxBytes` of it (more is refused);
 * stops, throwing the signal's reason, when `signal` aborts.
 */
export async function readWorkspaceFile(
  workspace: string,
  path: string,
  maxBytes: number,
  signal?: AbortSignal,
): Promise<string> {
  const { root, real } = await resolveInWorkspace(workspace, path);
  const handle = await openInside(root, real, constants.O_RDONLY | NO_FOLLOW | NON_BLOCK, path);
  try {
    const { size } = await checkOpened(root, real, handle, path);
    const tooLarge = (bytes: number | string) =>
      new WorkspaceError(
        `${JSON.stringify(path)} is ${bytes} bytes; files of at most ${maxBytes} bytes can be read`,
      );
    if (size > maxBytes) throw tooLarge(size);
    // The size can lie (files in /proc say 0) or grow while read: count what comes instead.
    const chunk = Buffer.alloc(Math.min(64 * 1024, maxBytes + 1));
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      signal?.throwIfAborted();
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      total += bytesRead;
      if (total > maxBytes) throw tooLarge(`more than ${maxBytes}`);
      chunks.push(Buffer.from(chunk.subarray(0, bytesRead)));
    }
    return Buffer.concat(chunks, total).toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Writes a file inside the workspace, creating missing folders one at a time (each made in,
 * and opened from, the checked folder above it, so a parent swapped for a link is caught). The
 * file is truncated only after the opened file is known to be the right one. Stops, throwing
 * the signal's reason, when `signal` aborts (a timed-out call makes no more folders).
 */
export async function writeWorkspaceFile(
  workspace: string,
  path: string,
  content: string,
  signal?: AbortSignal,
): Promise<void> {
  const { root, real, exists, existing, missing } = await resolveInWorkspace(workspace, path);
  signal?.throwIfAborted();
  if (!exists) await makeFolders(root, existing, missing.slice(0, -1), path, signal);
  signal?.throwIfAborted();
  const handle = await openInside(
    root,
    real,
    constants.O_WRONLY | constants.O_CREAT | NO_FOLLOW | NON_BLOCK,
    path,
  );
  try {
    await checkOpened(root, real, handle, path);
    signal?.throwIfAborted();
    await handle.truncate(0);
    await handle.writeFile(content, { signal });
  } finally {
    await handle.close();
  }
}

/**
 * Makes `names` as nested folders below the existing inside folder `existing`. On Linux each
 * is made and opened through the descriptor of the one above (`/proc/self/fd/N/name`), so each
 * level costs the same whatever its depth and none can land outside; elsewhere by path, and
 * the file's open is checked after.
 */
async function makeFolders(
  root: string,
  existing: string,
  names: readonly string[],
  shown: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  if (names.length === 0) return;
  const made = (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  };
  if (!openAt) {
    let folder = existing;
    for (const name of names) {
      signal?.throwIfAborted();
      folder = join(folder, name);
      await mkdir(folder).catch(made);
    }
    return;
  }
  let handle = await openCheckedFolder(root, existing, shown);
  try {
    for (const name of names) {
      signal?.throwIfAborted();
      const path = `${PROC_FD}/${handle.fd}/${name}`;
      await mkdir(path).catch(made);
      const next = await open(path, FOLDER_FLAGS).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOTDIR')
          throw new WorkspaceError(`${JSON.stringify(shown)}: ${name} is not a folder`);
        return openError(error, shown);
      });
      await handle.close();
      handle = next;
    }
  } finally {
    await handle.close();
  }
}

/** The real path of a folder inside the workspace (for listing and searching). */
export async function workspaceFolder(
  workspace: string,
  path: string,
  signal?: AbortSignal,
): Promise<{ root: string; real: string }> {
  const { root, real, exists } = await resolveInWorkspace(workspace, path);
  signal?.throwIfAborted();
  if (!exists) throw new WorkspaceError(`${JSON.stringify(path)} does not exist`);
  if (!(await stat(real)).isDirectory())
    throw new WorkspaceError(`${JSON.stringify(path)} is not a folder`);
  return { root, real };
}
