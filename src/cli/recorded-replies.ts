import { readdir, readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RecordedReply } from '../agent/index.js';
import { CliError } from './command.js';

/** The demo session's recorded replies (`tagcall demo`, and `tagcall replay` with no files). */
export const DEMO_SESSION = fileURLToPath(new URL('../../fixtures/demo/session/', import.meta.url));

const AFTER_ERROR = '.after-error.txt';

/**
 * Recorded replies from files, in the order given: `NAME.after-error.txt` is not a turn of its
 * own but the reply served instead of `NAME.txt` when the call before it failed.
 */
export async function readRecordedReplies(files: readonly string[]): Promise<RecordedReply[]> {
  const read = (file: string) =>
    readFile(file, 'utf8').catch((error: Error) => {
      throw new CliError(`${file} cannot be read: ${error.message}`);
    });
  const alternatives = new Map(
    files.filter((f) => f.endsWith(AFTER_ERROR)).map((f) => [f.slice(0, -AFTER_ERROR.length), f]),
  );
  const turns = files.filter((f) => !f.endsWith(AFTER_ERROR));
  for (const [stem, file] of alternatives)
    if (!turns.includes(`${stem}.txt`))
      throw new CliError(
        `${file} is the reply after an error for ${basename(stem)}.txt, which is not given`,
      );
  return Promise.all(
    turns.map(async (file) => {
      const reply = await read(file);
      const alternative = alternatives.get(file.slice(0, -'.txt'.length));
      return alternative === undefined ? reply : { reply, afterError: await read(alternative) };
    }),
  );
}

/** The `.txt` files of a folder, in name order. */
export async function replyFiles(dir: string): Promise<string[]> {
  return (await readdir(dir))
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => join(dir, f));
}
