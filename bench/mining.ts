/**
 * `tagcall parse` over a generated JSONL log (OpenAI request bodies, one conversation a line):
 * throughput with one and two worker threads, and peak RSS at two input sizes.
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
async function writeLog(mb: number, files: number): Promise<string> {
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

/** Runs `tagcall parse DIR --format ndjson` (output to /dev/null): seconds and peak RSS. */
function parseLog(dir: string, jobs: number): Promise<{ seconds: number; peakRssMiB: number }> {
  return new Promise((resolve, reject) => {
    const sink = openSync('/dev/null', 'w');
    const started = now();
    const child = spawn(
      process.execPath,
      [CLI, 'parse', dir, '--format', 'ndjson', '--jobs', String(jobs), '--no-progress'],
      { stdio: ['ignore', sink, 'inherit'] },
    );
    let peak = 0;
    const sample = () => {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        peak = Math.max(peak, Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024);
      } catch {
        // The process has ended.
      }
    };
    const timer = setInterval(sample, 20);
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(timer);
      closeSync(sink);
      if (code !== 0) reject(new Error(`tagcall parse exited ${code}`));
      else resolve({ seconds: (now() - started) / 1000, peakRssMiB: peak });
    });
  });
}

export interface MiningFigures {
  mb: number;
  jobs1: { seconds: number; mbps: number; peakRssMiB: number };
  jobs2: { seconds: number; mbps: number; peakRssMiB: number };
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
