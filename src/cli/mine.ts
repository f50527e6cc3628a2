import { readdir, stat } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import { Worker } from 'node:worker_threads';
import picomatch from 'picomatch';
import {
  addAssistant,
  addFinding,
  createStats,
  type Finding,
  mergeStats,
  type ScanOptions,
  type ScanSink,
  scanTranscript,
  type TranscriptStats,
} from '../transcripts/index.js';
import { createProgress } from './progress.js';
import { readChunks } from './read-chunks.js';

export interface MineSettings {
  sources: readonly string[];
  /** Which files of a directory are read (picomatch, relative to it). Default: all. */
  glob?: string;
  /** Worker threads across files. Default: the number of cores. */
  jobs?: number;
  scan: ScanOptions;
  /** `ndjson`: a line per finding on `out`; `stats`: only the totals, returned. */
  mode: 'ndjson' | 'stats';
  /** A progress bar on stderr (when it is a terminal). */
  progress: boolean;
}

export interface InputFile {
  path: string;
  size: number;
}

/** Files to read: given files as they are, directories walked (sorted) and filtered by `glob`. */
export async function collectFiles(
  sources: readonly string[],
  glob?: string,
): Promise<InputFile[]> {
  const matches = glob === undefined ? () => true : picomatch(glob, { dot: true });
  const files: InputFile[] = [];
  async function walk(root: string, dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    entries.sort((a, b) => a.name.localeCompare(b.name));
    for (const entry of entries) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(root, path);
      else if (entry.isFile() && matches(relative(root, path)))
        files.push({ path, size: (await stat(path)).size });
    }
  }
  for (const source of sources) {
    if (source === '-') {
      files.push({ path: '-', size: 0 });
      continue;
    }
    const info = await stat(source);
    if (info.isDirectory()) await walk(source, source);
    else files.push({ path: source, size: info.size });
  }
  return files;
}

/**
 * One NDJSON record of `tagcall parse`, snake_case as the protocol writes names. Built
 * property by property (no spreads: this runs once per finding of a gigabyte log).
 */
export function findingRecord(f: Finding): Record<string, unknown> {
  const record: Record<string, unknown> = { type: f.type };
  record.source = f.file === '-' ? '<stdin>' : f.file;
  if (f.line !== undefined) record.line = f.line;
  if (f.messageIndex !== undefined) record.message_index = f.messageIndex;
  record.offset = f.offset;
  switch (f.type) {
    case 'call':
      record.id = f.id;
      record.server_name = f.serverName;
      record.tool_name = f.toolName;
      record.arguments = f.arguments;
      record.format = f.format;
      record.chars = f.chars;
      if (f.durationMs !== undefined) record.duration_ms = f.durationMs;
      break;
    case 'quoted':
      record.tool_name = f.toolName;
      record.format = f.format;
      break;
    default:
      record.code = f.code;
      record.message = f.message;
  }
  return record;
}

/**
 * Resolves when `out` drains or fails, removing both listeners as soon as one fires (racing
 * two `events.once` leaves the loser's listener behind: one per wait, thousands in a big scan).
 */
function drained(out: NodeJS.WritableStream): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      out.off('drain', done);
      out.off('error', done);
      resolve();
    };
    out.on('drain', done);
    out.on('error', done);
  });
}

export interface Progress {
  read(bytes: number): void;
  calls(n: number): void;
}

/**
 * Scans one file. Findings go to `emit` (NDJSON lines, batched) or into `stats`; after each
 * chunk `emit` is awaited, so a slow reader of the output slows the scan instead of filling
 * memory.
 */
export async function scanFile(
  file: InputFile,
  options: ScanOptions,
  mode: MineSettings['mode'],
  stats: TranscriptStats,
  emit: (lines: string) => void | Promise<void>,
  progress: Progress,
): Promise<void> {
  let batch = '';
  const sink: ScanSink =
    mode === 'stats'
      ? {
          finding: (f) => {
            addFinding(stats, f);
            if (f.type === 'call') progress.calls(1);
          },
          assistant: (t, k) => addAssistant(stats, t, k),
        }
      : {
          finding: (f) => {
            batch += `${JSON.stringify(findingRecord(f))}\n`;
            if (f.type === 'call') {
              stats.calls++;
              progress.calls(1);
            }
          },
          assistant: () => {},
        };
  async function* paced(): AsyncGenerator<string> {
    for await (const chunk of readChunks(file.path, (n) => {
      stats.bytes += n;
      progress.read(n);
    })) {
      yield chunk;
      if (batch.length > 0) {
        const lines = batch;
        batch = '';
        await emit(lines);
      }
    }
  }
  stats.files++;
  await scanTranscript(paced(), file.path, options, sink);
  if (batch.length > 0) await emit(batch);
}

// Run from the sources (tests, `tsx`), the worker is TypeScript too: its entry is loaded
// through tsx's API, since a worker's entry file comes before any inherited loader hook.
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(FROM_SOURCE ? './scan-worker.ts' : './scan-worker.js', import.meta.url);
const startWorker = (workerData: unknown) =>
  FROM_SOURCE
    ? new Worker(
        `import('tsx/esm/api').then((tsx) => tsx.tsImport(${JSON.stringify(WORKER_URL.href)}, ${JSON.stringify(WORKER_URL.href)}));`,
        { eval: true, workerData },
      )
    : new Worker(WORKER_URL, { workerData });

/** Messages between `mine` and its workers. */
export type ToWorker = { type: 'file'; file: InputFile } | { type: 'stop' };
export type FromWorker =
  | { type: 'progress'; bytes: number; calls: number }
  | { type: 'idle'; stats: TranscriptStats | null }
  | { type: 'failed'; path: string; message: string; code?: string };

/** What a worker is started with: a lock shared by all, so lines reach standard output whole. */
export interface WorkerSetup {
  options: ScanOptions;
  mode: MineSettings['mode'];
  outputLock: SharedArrayBuffer;
}

/**
 * Scans every source: in this thread with one job or one file, else across `jobs` worker
 * threads, each taking the next file when it is done with one. NDJSON goes to standard
 * output; workers write it themselves, a batch of whole lines at a time under a shared lock,
 * so the output order across files is not fixed (every record names its source) but within a
 * file it is the file's order.
 */
export async function mine(settings: MineSettings): Promise<TranscriptStats> {
  const files = await collectFiles(settings.sources, settings.glob);
  const total = createStats();
  const progress = createProgress(
    settings.progress,
    files.reduce((n, f) => n + f.size, 0),
  );
  const jobs = Math.max(1, Math.min(settings.jobs ?? cpus().length, files.length));
  const failures: string[] = [];
  // The reader of the output went away (`| head`): stop reading, quietly, as `cat` does.
  let outputClosed = false;
  const fail = (path: string, message: string, code: string | undefined) => {
    if (code === 'EPIPE') outputClosed = true;
    else failures.push(`${path}: ${message}`);
  };
  try {
    if (jobs === 1) {
      const out = process.stdout;
      out.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EPIPE') outputClosed = true;
      });
      const write = async (text: string) => {
        if (outputClosed) throw Object.assign(new Error('output closed'), { code: 'EPIPE' });
        if (!out.write(text)) await drained(out);
      };
      for (const file of files) {
        if (outputClosed) break;
        const stats = createStats();
        try {
          await scanFile(file, settings.scan, settings.mode, stats, write, progress);
        } catch (error) {
          fail(file.path, (error as Error).message, (error as NodeJS.ErrnoException).code);
        }
        mergeStats(total, stats);
      }
    } else {
      const queue = [...files];
      const setup: WorkerSetup = {
        options: settings.scan,
        mode: settings.mode,
        outputLock: new SharedArrayBuffer(4),
      };
      await Promise.all(
        Array.from({ length: jobs }, async () => {
          const worker = startWorker(setup);
          await new Promise<void>((resolve, reject) => {
            worker.on('message', (message: FromWorker) => {
              if (message.type === 'progress') {
                progress.read(message.bytes);
                progress.calls(message.calls);
              } else if (message.type === 'failed') {
                fail(message.path, message.message, message.code);
              } else {
                if (message.stats !== null) mergeStats(total, message.stats);
                const next = outputClosed ? undefined : queue.shift();
                worker.postMessage(
                  (next === undefined
                    ? { type: 'stop' }
                    : { type: 'file', file: next }) satisfies ToWorker,
                );
                if (next === undefined) resolve();
              }
            });
            worker.on('error', reject);
          });
          await worker.terminate();
        }),
      );
    }
  } finally {
    progress.end();
  }
  if (failures.length > 0) throw new Error(`could not read ${failures.join('; ')}`);
  return total;
}
