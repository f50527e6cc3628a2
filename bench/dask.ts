/**
 * Mining on a local Dask cluster against one process (#46 item 2): one large JSONL log, and
 * 10,000 files of 10 KB, each read by `tagcall parse --jobs 1`, by `--jobs 2` (both writing
 * findings and stats in one pass: --out, --stats-out) and by examples/dask/mine.py on a local
 * cluster of two worker processes of one thread each (the same two outputs). Wall and CPU
 * seconds of each run: /usr/bin/time counts the driver, its forked workers and every tagcall
 * process (each is waited for); the driver's --report splits the CPU by process. The
 * scheduler's cost per task comes from bench/dask_overhead.py.
 *
 * A section of `npm run bench` (the `dask` child), or alone: `npm run bench:dask`, which
 * prints its tables and rewrites them in docs/benchmarks.md.
 * TAGCALL_BENCH_DASK_MB: the large log's size (default 1,024: a log worth a cluster, where the
 * cluster's fixed costs weigh what they would); TAGCALL_BENCH_DASK_ROUNDS: runs of each
 * (default 3; the median counts).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCorpus } from './corpus.js';
import { median } from './measure.js';
import { type Run, timed, writeLog } from './mining.js';

const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const DRIVER = fileURLToPath(new URL('../examples/dask/mine.py', import.meta.url));
const OVERHEAD = fileURLToPath(new URL('./dask_overhead.py', import.meta.url));
const PYTHON = '/usr/bin/python3';
const SMALL_FILES = 10_000;
const SMALL_BYTES = 10_000;

/** `count` JSONL files of about `bytes` bytes each: whole records, replies cut to fit. */
function writeSmallFiles(count: number, bytes: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-small-'));
  const { messages } = generateCorpus(4 * 1024 * 1024, 11);
  const records = messages.map(
    (reply, i) =>
      `${JSON.stringify({
        messages: [
          { role: 'user', content: `Task ${i}: fix the failing test.` },
          { role: 'assistant', content: reply.slice(0, bytes / 2) },
        ],
      })}\n`,
  );
  let next = 0;
  for (let f = 0; f < count; f++) {
    let text = '';
    while (text.length < bytes) text += records[next++ % records.length];
    writeFileSync(join(dir, `session-${String(f).padStart(5, '0')}.jsonl`), text);
  }
  return dir;
}

interface Split {
  tasks: number;
  cpu_seconds: { driver: number; workers: number; tagcall: number };
}

interface Runs {
  mb: number;
  files: number;
  jobs1: Run;
  jobs2: Run;
  dask: Run & { split: Split };
  /** Whether Dask's findings and stats are byte for byte --jobs 1's. */
  same: boolean;
}

interface Overhead {
  tasks: number;
  startSeconds: number;
  startCpuSeconds: number;
  perTaskMs: number;
  perTaskCpuMs: number;
}

export type DaskFigures =
  | { missing: string }
  | { large: Runs; small: Runs; overhead: Overhead; rounds: number };

const parseArgs = (input: string, jobs: number, out: string) => [
  process.execPath,
  CLI,
  'parse',
  input,
  '--jobs',
  String(jobs),
  '--no-progress',
  '--out',
  `${out}.ndjson`,
  '--stats-out',
  `${out}.stats.json`,
];

const daskArgs = (input: string, out: string) => [
  PYTHON,
  DRIVER,
  input,
  '--workers',
  '2',
  '--out',
  `${out}.ndjson`,
  '--stats',
  `${out}.stats.json`,
  '--report',
  `${out}.report.json`,
  '--tagcall',
  `${process.execPath} ${CLI}`,
];

const medianRun = (runs: Run[]): Run => ({
  seconds: median(runs.map((r) => r.seconds)),
  cpuSeconds: median(runs.map((r) => r.cpuSeconds)),
  peakRssMiB: median(runs.map((r) => r.peakRssMiB)),
});

const sameBytes = (a: string, b: string) => readFileSync(a).equals(readFileSync(b));

/** Each way over `input`, `rounds` times in turn (so all share the machine's stretches of time). */
async function measure(input: string, mb: number, files: number, rounds: number): Promise<Runs> {
  const out = mkdtempSync(join(tmpdir(), 'tagcall-dask-out-'));
  try {
    const one: Run[] = [];
    const two: Run[] = [];
    const dask: Run[] = [];
    const splits: Split[] = [];
    let same = true;
    for (let round = 0; round < rounds; round++) {
      one.push(await timed(parseArgs(input, 1, join(out, 'jobs1'))));
      two.push(await timed(parseArgs(input, 2, join(out, 'jobs2'))));
      dask.push(await timed(daskArgs(input, join(out, 'dask'))));
      splits.push(JSON.parse(readFileSync(join(out, 'dask.report.json'), 'utf8')));
      same &&=
        sameBytes(join(out, 'dask.ndjson'), join(out, 'jobs1.ndjson')) &&
        sameBytes(join(out, 'dask.stats.json'), join(out, 'jobs1.stats.json'));
    }
    const split =
      splits[dask.indexOf([...dask].sort((a, b) => a.cpuSeconds - b.cpuSeconds)[rounds >> 1])];
    return {
      mb,
      files,
      jobs1: medianRun(one),
      jobs2: medianRun(two),
      dask: { ...medianRun(dask), split },
      same,
    };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

export async function runDask(): Promise<DaskFigures> {
  const probe = spawnSync(PYTHON, ['-c', 'import distributed']);
  if (probe.status !== 0)
    return { missing: `${PYTHON} cannot import distributed (apt-get install python3-distributed)` };
  const mb = Number(process.env.TAGCALL_BENCH_DASK_MB ?? 1024);
  const rounds = Number(process.env.TAGCALL_BENCH_DASK_ROUNDS ?? 3);
  const logDir = await writeLog(mb, 1);
  const small = writeSmallFiles(SMALL_FILES, SMALL_BYTES);
  try {
    const log = join(logDir, 'log-0.jsonl');
    // Warm the file cache and the code once, unmeasured.
    await timed(parseArgs(small, 2, join(logDir, 'warm')));
    await timed(parseArgs(log, 1, join(logDir, 'warm')));
    const overhead = JSON.parse(execFileSync(PYTHON, [OVERHEAD], { encoding: 'utf8' })) as Overhead;
    return {
      large: await measure(log, mb, 1, rounds),
      small: await measure(small, (SMALL_FILES * SMALL_BYTES) / 1e6, SMALL_FILES, rounds),
      overhead,
      rounds,
    };
  } finally {
    rmSync(logDir, { recursive: true, force: true });
    rmSync(small, { recursive: true, force: true });
  }
}

/** The met targets: Dask's wall within 1.25× of --jobs 2, its CPU within 1.2× of --jobs 1. */
export function daskTargets(figures: DaskFigures): Array<[string, string, boolean]> {
  if ('missing' in figures) return [];
  return (['large', 'small'] as const).flatMap((input): Array<[string, string, boolean]> => {
    const runs = figures[input];
    const wall = runs.dask.seconds / runs.jobs2.seconds;
    const cpu = runs.dask.cpuSeconds / runs.jobs1.cpuSeconds;
    const what =
      input === 'large'
        ? `one ${runs.mb} MB log`
        : `${runs.files.toLocaleString('en')} files of 10 KB`;
    return [
      [
        `Dask, 2 local workers, wall ≤ 1.25× --jobs 2 (${what})`,
        `${wall.toFixed(2)}×`,
        wall <= 1.25,
      ],
      [`Dask, 2 local workers, CPU ≤ 1.2× --jobs 1 (${what})`, `${cpu.toFixed(2)}×`, cpu <= 1.2],
    ];
  });
}

/** The section's Markdown, between markers that `npm run bench:dask` rewrites alone. */
export function daskTables(figures: DaskFigures): string[] {
  const lines = [
    '<!-- bench:dask:start -->',
    '## Mining on a local Dask cluster against one process',
    '',
  ];
  if ('missing' in figures)
    return [...lines, `Not run: ${figures.missing}.`, '', '<!-- bench:dask:end -->'];
  const { overhead } = figures;
  lines.push(
    `Each run writes the findings (NDJSON) and the stats: \`tagcall parse --out F --stats-out S\`, or \`examples/dask/mine.py --out F --stats S\` on a local cluster of 2 worker processes (1 thread each; one \`tagcall parse\` per task, tasks of the input over the workers). CPU: the driver, its workers and every tagcall process. Median of ${figures.rounds} runs each, in turn. Dask's findings and stats are byte for byte those of \`--jobs 1\`: large ${figures.large.same ? 'yes' : '**no**'}, small files ${figures.small.same ? 'yes' : '**no**'}.`,
    '',
    '| input | run | wall s | CPU s | wall × --jobs 2 | CPU × --jobs 1 | CPU × --jobs 2 | Dask CPU: driver / workers / tagcall | tasks |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const input of ['large', 'small'] as const) {
    const runs = figures[input];
    const name =
      input === 'large'
        ? `one ${runs.mb} MB JSONL log`
        : `${runs.files.toLocaleString('en')} files of 10 KB`;
    for (const [run, r] of [
      ['--jobs 1', runs.jobs1],
      ['--jobs 2', runs.jobs2],
      ['Dask, 2 workers', runs.dask],
    ] as const) {
      const split =
        r === runs.dask
          ? `${runs.dask.split.cpu_seconds.driver.toFixed(2)} / ${runs.dask.split.cpu_seconds.workers.toFixed(2)} / ${runs.dask.split.cpu_seconds.tagcall.toFixed(2)}`
          : '';
      lines.push(
        `| ${name} | ${run} | ${r.seconds.toFixed(1)} | ${r.cpuSeconds.toFixed(2)} | ${(r.seconds / runs.jobs2.seconds).toFixed(2)} | ${(r.cpuSeconds / runs.jobs1.cpuSeconds).toFixed(2)} | ${(r.cpuSeconds / runs.jobs2.cpuSeconds).toFixed(2)} | ${split} | ${r === runs.dask ? runs.dask.split.tasks : ''} |`,
      );
    }
  }
  lines.push(
    '',
    `The scheduler: starting the local cluster (driver imports, scheduler, two forked workers) ${overhead.startSeconds.toFixed(2)} s wall, ${overhead.startCpuSeconds.toFixed(2)} CPU s; then ${overhead.perTaskMs.toFixed(2)} ms wall and ${overhead.perTaskCpuMs.toFixed(2)} CPU ms per task (${overhead.tasks.toLocaleString('en')} tasks that do nothing, mapped at once). A task of mine.py adds a \`tagcall\` process (start-up and JIT warm-up).`,
    '',
    '| target | measured | met |',
    '|---|---:|:---:|',
    ...daskTargets(figures).map(
      ([target, measured, met]) => `| ${target} | ${measured} | ${met ? 'yes' : '**no**'} |`,
    ),
    '',
    '<!-- bench:dask:end -->',
  );
  return lines;
}

// Alone (`npm run bench:dask`): print, keep the results, and rewrite the section in the docs.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await runDask();
  const lines = daskTables(figures);
  console.log(lines.join('\n'));
  const results = new URL('./results/', import.meta.url);
  mkdirSync(results, { recursive: true });
  writeFileSync(new URL('dask.json', results), `${JSON.stringify(figures, null, 2)}\n`);
  const docs = new URL('../docs/benchmarks.md', import.meta.url);
  const text = readFileSync(docs, 'utf8');
  const marked = /<!-- bench:dask:start -->[\s\S]*?<!-- bench:dask:end -->/;
  if (marked.test(text)) writeFileSync(docs, text.replace(marked, lines.join('\n')));
}
