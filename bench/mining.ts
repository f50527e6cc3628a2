/**
 * `tagcall parse` over a generated JSONL log (OpenAI request bodies, one conversation a line):
 * throughput with one and two worker threads, CPU seconds, and peak RSS at two input sizes
 * (the cluster's figures are bench/dask.ts's).
 * TAGCALL_BENCH_LOG_MB sets the large size (default 1024).
 */
import { spawn } from 'node:child_process';
import { closeSync, createWriteStream, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCorpus } from './corpus.js';
import { now } from './measure.js';

const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const FILES = 8;

/** Writes `files` JSONL files of about `mb` MB in all; returns their folder. */
export async function writeLog(mb: number, files: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-log-'));
  const corpus = generateCorpus(4 * 1024 * 1024);
  const system = 'You are a coding agent. Call tools with <tool> blocks.';
  const lines = corpus.messages.map(
    (reply, i) =>
      `${JSON.stringify({
        model: 'local',
        messages: [
          { role: 'system', content: system },
          { role: 'user', content: `Task ${i}: fix the failing test.` },
          { role: 'assistant', content: reply },
        ],
      })}\n`,
  );
  const perFile = (mb * 1e6) / files;
  for (let f = 0; f < files; f++) {
    const out = createWriteStream(join(dir, `log-${f}.jsonl`));
    let written = 0;
    for (let i = 0; written < perFile; i++) {
      const line = lines[(i + f * 17) % lines.length];
      written += Buffer.byteLength(line);
      if (!out.write(line))
        await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    }
    await new Promise((resolve) => out.end(resolve));
  }
  return dir;
}

export interface Run {
  seconds: number;
  cpuSeconds: number;
  peakRssMiB: number;
}

/**
 * Runs `argv` under /usr/bin/time with its standard output to /dev/null: wall seconds, CPU
 * seconds (user + system, of it and every descendant it waited for) and peak RSS (of the
 * largest process).
 */
export function timed(argv: string[]): Promise<Run> {
  const report = join(mkdtempSync(join(tmpdir(), 'tagcall-time-')), 'time');
  return new Promise((resolve, reject) => {
    const sink = openSync('/dev/null', 'w');
    const started = now();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', report, ...argv], {
      stdio: ['ignore', sink, 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      closeSync(sink);
      const seconds = (now() - started) / 1000;
      if (code !== 0) return reject(new Error(`${argv.join(' ')} exited ${code}`));
      const [user, system, rssKb] = readFileSync(report, 'utf8')
        .trim()
        .split(/\s+/)
        .slice(-3)
        .map(Number);
      rmSync(report, { force: true });
      resolve({ seconds, cpuSeconds: user + system, peakRssMiB: rssKb / 1024 });
    });
  });
}

/** `tagcall parse DIR --format ndjson --jobs N`. */
const parseLog = (dir: string, jobs: number) =>
  timed([
    process.execPath,
    CLI,
    'parse',
    dir,
    '--format',
    'ndjson',
    '--jobs',
    String(jobs),
    '--no-progress',
  ]);

export interface MiningFigures {
  mb: number;
  jobs1: Run & { mbps: number };
  jobs2: Run & { mbps: number };
  small: { mb: number; peakRssMiB: number };
}

export async function runMining(): Promise<MiningFigures> {
  const mb = Number(process.env.TAGCALL_BENCH_LOG_MB ?? 1024);
  const smallMb = Math.max(8, Math.round(mb / 8));
  const large = await writeLog(mb, FILES);
  const small = await writeLog(smallMb, FILES);
  try {
    await parseLog(small, 1); // warm the file cache and the code
    const smallRun = await parseLog(small, 1);
    const one = await parseLog(large, 1);
    const two = await parseLog(large, 2);
    return {
      mb,
      jobs1: { ...one, mbps: mb / one.seconds },
      jobs2: { ...two, mbps: mb / two.seconds },
      small: { mb: smallMb, peakRssMiB: smallRun.peakRssMiB },
    };
  } finally {
    rmSync(large, { recursive: true, force: true });
    rmSync(small, { recursive: true, force: true });
  }
}
