/**
 * A real Dask run (#29 item 4): examples/dask/mine.py starts a local scheduler and two worker
 * processes on 127.0.0.1, maps `tagcall parse --range` and `tagcall stats --range` over byte
 * ranges of two JSONL logs, and its findings and merged stats must equal one process's.
 * Skipped, saying why, where Debian's python3-distributed is missing (.ci/run installs it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateCorpus } from '../bench/corpus.js';

const PYTHON = '/usr/bin/python3';
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const probe = spawnSync(PYTHON, ['-c', 'import distributed'], { encoding: 'utf8' });
const daskMissing = probe.status !== 0;
if (daskMissing)
  console.warn(
    `test/dask.test.ts skipped: ${PYTHON} cannot import distributed (apt-get install python3-distributed): ${probe.error?.message ?? probe.stderr.trim()}`,
  );

const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const TAGCALL = [process.execPath, '--import', TSX, join(ROOT, 'src/cli/main.ts')];

describe.skipIf(daskMissing)('tagcall on a local Dask cluster', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-dask-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('two workers over byte ranges write what one process writes', async () => {
    const logs = [1, 2].map((seed) => {
      const { messages } = generateCorpus(400_000, seed);
      const path = join(dir, `log-${seed}.jsonl`);
      writeFileSync(
        path,
        `${messages
          .map((reply, i) =>
            JSON.stringify({
              messages: [
                { role: 'user', content: `Task ${i}` },
                { role: 'assistant', content: reply },
              ],
            }),
          )
          .join('\n')}\n`,
      );
      return path;
    });
    const out = join(dir, 'findings.ndjson');
    const stats = join(dir, 'stats.json');
    const driver = spawn(
      PYTHON,
      [
        join(ROOT, 'examples/dask/mine.py'),
        ...logs,
        '--parts',
        '5',
        '--workers',
        '2',
        '--out',
        out,
        '--stats',
        stats,
        '--tagcall',
        TAGCALL.map((part) => `'${part}'`).join(' '),
      ],
      { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    driver.stderr.on('data', (data: Buffer) => {
      stderr += data;
    });
    const timer = setTimeout(() => driver.kill('SIGKILL'), 150_000);
    const code = await new Promise((resolve) => driver.once('exit', resolve));
    clearTimeout(timer);
    expect(code, stderr).toBe(0);

    const one = spawnSync(TAGCALL[0], [...TAGCALL.slice(1), 'parse', ...logs, '--jobs', '1'], {
      cwd: ROOT,
      maxBuffer: 256 << 20,
    });
    expect(readFileSync(out).equals(one.stdout)).toBe(true);
    const whole = spawnSync(
      TAGCALL[0],
      [...TAGCALL.slice(1), 'stats', ...logs, '--json', '--jobs', '1'],
      { cwd: ROOT, encoding: 'utf8' },
    );
    expect(JSON.parse(readFileSync(stats, 'utf8'))).toEqual(JSON.parse(whole.stdout));
  }, 180_000);
});
