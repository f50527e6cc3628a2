/**
 * A real Dask run (#29 item 4, #46 item 1): examples/dask/mine.py starts a local scheduler and
 * two worker processes on 127.0.0.1; each task is one `tagcall parse --out --stats-out` pass
 * over a byte range of a JSONL log or over a batch of small files, writing its part to a
 * folder the workers share. The parts in order (concatenated, or as the manifest lists them)
 * and their merged stats must equal one process's, byte for byte. Skipped, saying why, where
 * Debian's python3-distributed is missing (.ci/run installs it).
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

/** Runs the driver with `args`; resolves with its exit code and standard error. */
async function runDriver(args: string[]): Promise<{ code: unknown; stderr: string }> {
  const driver = spawn(
    PYTHON,
    [
      join(ROOT, 'examples/dask/mine.py'),
      '--workers',
      '2',
      '--tagcall',
      TAGCALL.map((part) => `'${part}'`).join(' '),
      ...args,
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
  return { code, stderr };
}

/** What one `tagcall` process writes for `args` (parse's NDJSON, or stats --json as data). */
function oneProcess(args: string[]): Buffer {
  return spawnSync(TAGCALL[0], [...TAGCALL.slice(1), ...args, '--jobs', '1'], {
    cwd: ROOT,
    maxBuffer: 256 << 20,
  }).stdout;
}

/** A JSONL log of corpus replies, about `bytes` long. */
function writeLog(path: string, bytes: number, seed: number): void {
  const { messages } = generateCorpus(bytes, seed);
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
}

describe.skipIf(daskMissing)('tagcall on a local Dask cluster, one pass a task', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-dask-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('byte ranges of two logs: parts in a shared folder, a manifest, the bytes of one process', async () => {
    const logs = [1, 2].map((seed) => {
      const path = join(dir, `log-${seed}.jsonl`);
      writeLog(path, 400_000, seed);
      return path;
    });
    const parts = join(dir, 'parts');
    const out = join(dir, 'findings.ndjson');
    const run = await runDriver([...logs, '--parts', parts, '--task-mb', '0.15', '--out', out]);
    expect(run.code, run.stderr).toBe(0);

    const one = oneProcess(['parse', ...logs]);
    expect(readFileSync(out).equals(one)).toBe(true);
    const manifest = JSON.parse(readFileSync(join(parts, 'manifest.json'), 'utf8'));
    // Each log is cut into ranges (3 of about 0.15 MB each), each range one task and one part.
    expect(manifest.parts.length).toBeGreaterThanOrEqual(6);
    const listed = manifest.parts.map((p: { findings: string; bytes: number }) => {
      const bytes = readFileSync(p.findings);
      expect(bytes.length).toBe(p.bytes);
      return bytes;
    });
    expect(Buffer.concat(listed).equals(one)).toBe(true);
    expect(JSON.parse(readFileSync(manifest.stats, 'utf8'))).toEqual(
      JSON.parse(oneProcess(['stats', ...logs, '--json']).toString()),
    );
  }, 180_000);

  it('a folder of small files in batches, a large log among them, parts through an fsspec URL', async () => {
    const folder = join(dir, 'sessions');
    mkdirSync(join(folder, 'b-nested'), { recursive: true });
    const { messages } = generateCorpus(300_000, 4);
    messages.forEach((reply, i) => {
      const name = `${i % 3 === 0 ? 'b-nested/' : ''}s-${String(i).padStart(3, '0')}.jsonl`;
      writeFileSync(
        join(folder, name),
        `${JSON.stringify({ messages: [{ role: 'assistant', content: reply }] })}\n`,
      );
    });
    writeFileSync(join(folder, 'b-reply.txt'), '<tool>\n<tool_name>read</tool_name>\n</tool>\n');
    // A name with a line break cannot go in a batch (one path a line): a task of its own.
    writeFileSync(
      join(folder, 'c-line\nbreak.txt'),
      '<tool>\n<tool_name>edit</tool_name>\n</tool>\n',
    );
    writeLog(join(folder, 'a-large.jsonl'), 200_000, 3);
    const out = join(dir, 'sessions.ndjson');
    const stats = join(dir, 'sessions.stats.json');
    const parts = `file://${join(dir, 'session-parts')}`;
    const run = await runDriver([
      folder,
      '--parts',
      parts,
      '--task-mb',
      '0.08',
      '--out',
      out,
      '--stats',
      stats,
    ]);
    expect(run.code, run.stderr).toBe(0);

    expect(readFileSync(out).equals(oneProcess(['parse', folder]))).toBe(true);
    expect(JSON.parse(readFileSync(stats, 'utf8'))).toEqual(
      JSON.parse(oneProcess(['stats', folder, '--json']).toString()),
    );
    const manifest = JSON.parse(readFileSync(join(dir, 'session-parts/manifest.json'), 'utf8'));
    // About 70 files and a 0.2 MB log in tasks of 0.08 MB: a few batches and a few ranges,
    // far fewer tasks than files.
    expect(manifest.parts.length).toBeGreaterThan(3);
    expect(manifest.parts.length).toBeLessThan(messages.length / 3);
    expect(manifest.parts[0].findings).toMatch(/^file:\/\/.*part-00000\.ndjson$/);
  }, 180_000);

  it('parts in object storage (fsspec): uploaded by the task, read back for --out and the stats', () => {
    // fsspec's in-memory filesystem stands in for s3:// or gs://: one process runs two tasks,
    // the merge and the copy, as a worker and the driver would against a bucket.
    const log = join(dir, 'log-1.jsonl');
    const out = join(dir, 'from-memory.ndjson');
    const stats = join(dir, 'from-memory.stats.json');
    const size = readFileSync(log).length;
    const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(join(ROOT, 'examples/dask'))})
import fsspec, mine
command = json.loads(sys.argv[1])
half = ${Math.floor(size / 2)}
tasks = [("range", ${JSON.stringify(log)}, 0, half), ("range", ${JSON.stringify(log)}, half, ${size})]
parts = [mine.run_task(command, [], task, "memory://bucket/run", i) for i, task in enumerate(tasks)]
assert parts[0]["findings"] == "memory://bucket/run/part-00000.ndjson", parts[0]
assert fsspec.filesystem("memory").exists("/bucket/run/part-00001.stats.json")
mine.merge_stats(command, parts, ${JSON.stringify(stats)})
mine.concatenate(parts, ${JSON.stringify(out)})
`;
    const run = spawnSync(PYTHON, ['-c', script, JSON.stringify(TAGCALL)], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 120_000,
    });
    expect(run.status, run.stderr).toBe(0);
    expect(readFileSync(out).equals(oneProcess(['parse', log]))).toBe(true);
    expect(JSON.parse(readFileSync(stats, 'utf8'))).toEqual(
      JSON.parse(oneProcess(['stats', log, '--json']).toString()),
    );
  }, 180_000);

  it('a path that is not there, or a task that fails, is said, and the driver exits non-zero', async () => {
    const notThere = await runDriver([join(dir, 'missing.jsonl'), '--out', join(dir, 'x.ndjson')]);
    expect(notThere.code).toBe(2);
    expect(notThere.stderr).toContain('missing.jsonl: no such file or folder');
    const log = join(dir, 'log-1.jsonl');
    const failed = await runDriver([
      log,
      '--out',
      join(dir, 'x.ndjson'),
      '--',
      '--dialect',
      'nope',
    ]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain('a task failed: tagcall parse');
    expect(failed.stderr).toContain('--dialect');
  }, 180_000);
});
