import { createReadStream } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { cpus } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import picomatch from 'picomatch';
import { drained } from '../server/backpressure.js';
import {
  addAssistant,
  addFailed,
  addFinding,
  addMessage,
  compareBytes,
  createStats,
  findingRecord,
  layoutOf,
  mergeStats,
  type ScanOptions,
  type ScanSink,
  scanTranscript,
  type TranscriptStats,
} from '../transcripts/index.js';
import { recordRange } from './byte-range.js';
import { CliError } from './command.js';
import { createProgress } from './progress.js';
import { readChunks } from './read-chunks.js';
import { writeAll } from './write-all.js';

export interface MineSettings {
  sources: readonly string[];
  /** A file (or `-`, standard input) naming the paths to read, one a line, read as they come. */
  filesFrom?: string;
  /** One input read in part or under another name (see the --range, --source, --first-line flags). */
  part?: { range?: { start: number; end: number }; firstLine?: number; source?: string };
  /** Which files of a directory are read (picomatch, relative to it). Default: all. */
  glob?: string;
  /** Worker threads across files. Default: the number of cores. */
  jobs?: number;
  scan: ScanOptions;
  /**
   * `ndjson`: a line per finding on the output (only calls counted); `stats`: only the totals,
   * returned; `ndjson+stats`: both in one pass (a cluster's part and its stats).
   */
  mode: 'ndjson' | 'stats' | 'ndjson+stats';
  /** Where NDJSON goes: a file descriptor open for writing. Default: standard output. */
  outputFd?: number;
  /** A progress bar on stderr (when it is a terminal). */
  progress: boolean;
}

export interface InputFile {
  path: string;
  size: number;
  /** What findings call it (default: the path; `-` is `<stdin>`). */
  name?: string;
  /** Only these bytes, inclusive: whole JSONL records (see recordRange). */
  range?: { start: number; end: number };
  /** The line number of its first line in the file it was cut from. */
  firstLine?: number;
}

/** Files to read: given files as they are, directories walked (byte order) and filtered by `glob`. */
export async function collectFiles(
  sources: readonly string[],
  glob?: string,
): Promise<InputFile[]> {
  const matches = glob === undefined ? () => true : picomatch(glob, { dot: true });
  const files: InputFile[] = [];
  async function walk(root: string, dir: string): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    // Byte order, the same on every machine and locale (a cluster's shards agree on it).
    entries.sort((a, b) => compareBytes(a.name, b.name));
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
 * The files named one a line in `list` (`-`: standard input), each yielded as its line comes
 * (a worker handed paths over time starts on each at once); directories walked as arguments
 * are. A path that cannot be read is reported to `fail` and skipped.
 */
async function* filesNamedIn(
  list: string,
  glob: string | undefined,
  fail: (path: string, message: string) => void,
): AsyncGenerator<InputFile> {
  const input = list === '-' ? process.stdin : createReadStream(list);
  for await (const line of createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY })) {
    const path = line.trim();
    if (path === '') continue;
    try {
      yield* await collectFiles([path], glob);
    } catch (error) {
      fail(path, (error as Error).message);
    }
  }
}

/** One input read in part or under another name: `--range`, `--source`, `--first-line`. */
async function readInPart(files: InputFile[], part: MineSettings['part']): Promise<void> {
  if (part !== undefined && files.length === 1) {
    const [file] = files;
    if (part.source !== undefined) file.name = part.source;
    if (part.firstLine !== undefined) file.firstLine = part.firstLine;
    if (part.range !== undefined) {
      if (!(await isJsonl(file.path)))
        throw new CliError(
          `--range splits a JSONL log (one record a line); ${file.path} is not one (read it whole)`,
        );
      const range = await recordRange(file.path, part.range.start, part.range.end);
      file.range = { start: range.start, end: range.end };
      file.firstLine = range.firstLine;
      file.size = Math.max(0, range.end - range.start + 1);
    }
  }
}

/** Whether the file's first line is a JSONL record (read up to 1 MiB of it). */
async function isJsonl(path: string): Promise<boolean> {
  for await (const chunk of readChunks(path, () => {}, { start: 0, end: (1 << 20) - 1 })) {
    const newline = chunk.indexOf('\n');
    return layoutOf(newline === -1 ? chunk : chunk.slice(0, newline)) === 'jsonl';
  }
  return false;
}

export interface Progress {
  read(bytes: number): void;
  calls(n: number): void;
}

/**
 * Scans one file. Findings go to `emit` (NDJSON lines, batched), into `stats`, or both; after
 * each chunk `emit` is awaited, so a slow reader of the output slows the scan instead of
 * filling memory.
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
  /** What stats counts beside the findings. */
  const counted: Omit<ScanSink, 'finding'> = {
    assistant: (t, k) => addAssistant(stats, t, k),
    message: (line) => addMessage(stats, file.name ?? file.path, line),
    failed: (toolName) => addFailed(stats, toolName),
  };
  const sink: ScanSink =
    mode === 'stats'
      ? {
          finding: (f) => {
            addFinding(stats, f);
            if (f.type === 'call') progress.calls(1);
          },
          ...counted,
        }
      : mode === 'ndjson+stats'
        ? {
            finding: (f) => {
              batch += `${JSON.stringify(findingRecord(f))}\n`;
              addFinding(stats, f);
              if (f.type === 'call') progress.calls(1);
            },
            ...counted,
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
    const read = (n: number) => {
      stats.bytes += n;
      progress.read(n);
    };
    for await (const chunk of readChunks(file.path, read, file.range, file.size)) {
      yield chunk;
      if (batch.length > 0) {
        const lines = batch;
        batch = '';
        await emit(lines);
      }
    }
  }
  // A file read in parts counts once: in the part that holds its first byte.
  if (file.range === undefined || file.range.start === 0) stats.files++;
  const scan =
    file.range === undefined && file.firstLine === undefined
      ? options
      : { ...options, firstLine: file.firstLine, jsonl: file.range !== undefined || options.jsonl };
  await scanTranscript(paced(), file.name ?? file.path, scan, sink);
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
  | { type: 'idle' }
  | { type: 'stopped'; stats: TranscriptStats }
  | { type: 'failed'; path: string; message: string; code?: string };

/** What a worker is started with: a lock shared by all, so lines reach the output whole. */
export interface WorkerSetup {
  options: ScanOptions;
  mode: MineSettings['mode'];
  /** Standard output (1) or the file of --out: worker threads share the process's descriptors. */
  outputFd: number;
  outputLock: SharedArrayBuffer;
}

/**
 * Scans every source: in this thread with one job or one file, else across `jobs` worker
 * threads, each taking the next file when it is done with one. NDJSON goes to standard
 * output (or `outputFd`); workers write it themselves, a batch of whole lines at a time under a shared lock,
 * so the output order across files is not fixed (every record names its source) but within a
 * file it is the file's order.
 */
export async function mine(settings: MineSettings): Promise<TranscriptStats> {
  const failures: string[] = [];
  // The reader of the output went away (`| head`): stop reading, quietly, as `cat` does.
  let outputClosed = false;
  const fail = (path: string, message: string, code: string | undefined) => {
    if (code === 'EPIPE') outputClosed = true;
    else failures.push(`${path}: ${message}`);
  };
  let files: AsyncIterator<InputFile> | Iterator<InputFile>;
  let size = 0;
  let count = Number.POSITIVE_INFINITY;
  if (settings.filesFrom !== undefined) {
    files = filesNamedIn(settings.filesFrom, settings.glob, (path, message) =>
      fail(path, message, undefined),
    );
  } else {
    const list = await collectFiles(settings.sources, settings.glob);
    if (list.length === 0)
      throw new CliError(
        settings.glob === undefined
          ? `no file to read in ${settings.sources.join(', ')}`
          : `no file in ${settings.sources.join(', ')} matches --glob ${settings.glob}`,
      );
    await readInPart(list, settings.part);
    files = list[Symbol.iterator]();
    size = list.reduce((n, f) => n + f.size, 0);
    count = list.length;
  }
  const nextFile = async (): Promise<InputFile | undefined> => {
    if (outputClosed) return undefined;
    const next = await files.next();
    return next.done === true ? undefined : next.value;
  };
  const total = createStats();
  const progress = createProgress(settings.progress, size);
  const jobs = Math.max(1, Math.min(settings.jobs ?? cpus().length, count));
  try {
    if (jobs === 1) {
      const out = process.stdout;
      out.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'EPIPE') outputClosed = true;
      });
      const { outputFd } = settings;
      const write =
        outputFd === undefined
          ? async (text: string) => {
              if (outputClosed) throw Object.assign(new Error('output closed'), { code: 'EPIPE' });
              if (!out.write(text)) await drained(out);
            }
          : (text: string) => writeAll(outputFd, text);
      for (let file = await nextFile(); file !== undefined; file = await nextFile()) {
        const stats = createStats();
        try {
          await scanFile(file, settings.scan, settings.mode, stats, write, progress);
        } catch (error) {
          fail(file.path, (error as Error).message, (error as NodeJS.ErrnoException).code);
        }
        mergeStats(total, stats);
      }
    } else {
      const setup: WorkerSetup = {
        options: settings.scan,
        mode: settings.mode,
        outputFd: settings.outputFd ?? 1,
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
              } else if (message.type === 'stopped') {
                mergeStats(total, message.stats);
                resolve();
              } else {
                nextFile().then((next) => {
                  worker.postMessage(
                    (next === undefined
                      ? { type: 'stop' }
                      : { type: 'file', file: next }) satisfies ToWorker,
                  );
                }, reject);
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
