import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Runs a script of test/support in a child with `--expose-gc` (it collects and measures its
 * own heap) and returns what it printed; what it wrote to stderr, a crash included, is thrown.
 */
export function gcChildOutput(script: string, args: readonly string[]): string {
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', fileURLToPath(new URL(script, import.meta.url)), ...args],
    { encoding: 'utf8' },
  );
  if (run.stderr !== '') throw new Error(`${script}: ${run.stderr}`);
  return run.stdout;
}
