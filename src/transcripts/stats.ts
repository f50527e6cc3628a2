import type { Finding, Location } from './scan.js';

const TOP = 5;

export interface RankedCall {
  toolName: string;
  serverName: string;
  location: Location;
  chars: number;
  durationMs?: number;
}

/** Calls and assistant messages in lines `block * linesPerBlock + 1 …` of a file. */
export interface LogBlock {
  file: string;
  block: number;
  messages: number;
  calls: number;
}

/**
 * Calls and assistant messages along the log, in blocks of a file's lines: the fewest lines a
 * block (a power of two) that makes at most `ALONG_LOG_BLOCKS` blocks, or one block a file.
 * Blocks are cut at absolute line numbers, so parts of a log read apart merge to the whole's.
 */
export interface AlongLog {
  linesPerBlock: number;
  /** In file (byte order) and line order. */
  blocks: LogBlock[];
}

/** What `tagcall stats` counts; every field adds up across files (see `mergeStats`). */
export interface TranscriptStats {
  files: number;
  bytes: number;
  calls: number;
  quoted: number;
  /** Assistant messages (a text file, or a JSON reply, is one). */
  messages: number;
  /** Calls in system messages: a prompt's examples. */
  examples: number;
  byTool: Record<string, number>;
  /** Tool results marked as errors (structured logs), by the tool that failed. */
  failedByTool: Record<string, number>;
  byServer: Record<string, number>;
  byFormat: Record<string, number>;
  errorsByCode: Record<string, number>;
  /** Malformed calls by the form they were written in (the parser's errors only). */
  errorsByFormat: Record<string, number>;
  warningsByCode: Record<string, number>;
  assistantTextChars: number;
  assistantThinkingChars: number;
  argumentChars: number;
  largest: RankedCall[];
  slowest: RankedCall[];
  alongLog: AlongLog;
}

export const ALONG_LOG_BLOCKS = 200;

export function createStats(): TranscriptStats {
  return {
    files: 0,
    bytes: 0,
    calls: 0,
    quoted: 0,
    messages: 0,
    examples: 0,
    byTool: {},
    failedByTool: {},
    byServer: {},
    byFormat: {},
    errorsByCode: {},
    errorsByFormat: {},
    warningsByCode: {},
    assistantTextChars: 0,
    assistantThinkingChars: 0,
    argumentChars: 0,
    largest: [],
    slowest: [],
    alongLog: { linesPerBlock: 1, blocks: [] },
  };
}

const bump = (counts: Record<string, number>, key: string, by = 1) => {
  counts[key] = (counts[key] ?? 0) + by;
};

/** Byte order of two strings (UTF-8 order is code point order, which `<` on UTF-16 is not). */
export function compareBytes(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a.codePointAt(i) as number;
    const y = b.codePointAt(j) as number;
    if (x !== y) return x - y;
    i += x > 0xffff ? 2 : 1;
    j += y > 0xffff ? 2 : 1;
  }
  return a.length - i - (b.length - j);
}

/**
 * Larger `key` first; ties by place (file in byte order, line, message, offset), so the lists
 * are the same whatever order files were read in, and merging parts' lists gives the whole's.
 */
function compareRanked(key: (c: RankedCall) => number) {
  return (a: RankedCall, b: RankedCall): number =>
    key(b) - key(a) ||
    compareBytes(a.location.file, b.location.file) ||
    (a.location.line ?? 0) - (b.location.line ?? 0) ||
    (a.location.messageIndex ?? 0) - (b.location.messageIndex ?? 0) ||
    a.location.offset - b.location.offset;
}

/** Keeps the `TOP` first in `order`: a short list, whatever the input's size. */
function rank(
  list: RankedCall[],
  item: RankedCall,
  order: (a: RankedCall, b: RankedCall) => number,
): void {
  if (list.length === TOP && order(item, list[TOP - 1]) >= 0) return;
  list.push(item);
  list.sort(order);
  if (list.length > TOP) list.pop();
}
const bySize = compareRanked((c) => c.chars);
const byDuration = compareRanked((c) => c.durationMs ?? 0);

const byPlace = (a: LogBlock, b: LogBlock) => compareBytes(a.file, b.file) || a.block - b.block;

/** Two lists in place order as one, in linear time. */
function mergeSorted(a: readonly LogBlock[], b: readonly LogBlock[]): LogBlock[] {
  const out: LogBlock[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length)
    out.push(j === b.length || (i < a.length && byPlace(a[i], b[j]) <= 0) ? a[i++] : b[j++]);
  return out;
}

/** Blocks in place order `factor` times as long (a power of two), same places summed. */
function rebucket(blocks: readonly LogBlock[], factor: number): LogBlock[] {
  const out: LogBlock[] = [];
  for (const b of blocks) {
    const block = Math.floor(b.block / factor);
    const last = out[out.length - 1];
    if (last !== undefined && last.file === b.file && last.block === block) {
      last.messages += b.messages;
      last.calls += b.calls;
    } else out.push({ ...b, block });
  }
  return out;
}

/**
 * How many leading blocks of a list are known to be block 0 (a whole file). A list only grows
 * at its end or is replaced, so what was scanned stays true: without it, a folder of small
 * files (one block each, more files than ALONG_LOG_BLOCKS) rescanned the whole list after
 * every file.
 */
const wholeFiles = new WeakMap<LogBlock[], number>();

/** Whether some block is past its file's first (so doubling the block size can merge some). */
function canCoarsen(blocks: LogBlock[]): boolean {
  let i = wholeFiles.get(blocks) ?? 0;
  while (i < blocks.length && blocks[i].block === 0) i++;
  wholeFiles.set(blocks, i);
  return i < blocks.length;
}

/** Doubles the block size until the blocks are few enough, or one a file. */
function coarsen(along: AlongLog): void {
  while (along.blocks.length > ALONG_LOG_BLOCKS && canCoarsen(along.blocks)) {
    along.linesPerBlock *= 2;
    along.blocks = rebucket(along.blocks, 2);
  }
}

/** Both lists' blocks in place order, at the coarser block size of the two. */
function mergeAlong(into: AlongLog, from: AlongLog): AlongLog {
  const last = into.blocks[into.blocks.length - 1];
  const first = from.blocks[0];
  if (
    from.linesPerBlock <= into.linesPerBlock &&
    (last === undefined || first === undefined || compareBytes(last.file, first.file) < 0)
  ) {
    // Later files (a folder read in order): appended. Merged anew each time, 8,000 small
    // files took 15.8 CPU s, the list as long as the files.
    for (const b of rebucket(from.blocks, into.linesPerBlock / from.linesPerBlock))
      into.blocks.push(b);
    coarsen(into);
    return into;
  }
  const linesPerBlock = Math.max(into.linesPerBlock, from.linesPerBlock);
  const merged = {
    linesPerBlock,
    blocks: rebucket(
      mergeSorted(
        rebucket(into.blocks, linesPerBlock / into.linesPerBlock),
        rebucket(from.blocks, linesPerBlock / from.linesPerBlock),
      ),
      1,
    ),
  };
  coarsen(merged);
  return merged;
}

function addAlong(
  stats: TranscriptStats,
  file: string,
  line: number,
  messages: number,
  calls: number,
) {
  const along = stats.alongLog;
  const block = Math.floor((line - 1) / along.linesPerBlock);
  // Findings come in order within a file: the block is nearly always the last one.
  const last = along.blocks[along.blocks.length - 1];
  if (last !== undefined && last.file === file && last.block === block) {
    last.messages += messages;
    last.calls += calls;
    return;
  }
  const added = { file, block, messages, calls };
  if (last === undefined || byPlace(last, added) < 0) along.blocks.push(added);
  else along.blocks = rebucket(mergeSorted(along.blocks, [added]), 1);
  coarsen(along);
}

/** An assistant message at `line` of `file` (1 where the file has no lines: a JSON document). */
export function addMessage(stats: TranscriptStats, file: string, line = 1): void {
  stats.messages++;
  addAlong(stats, file, line, 1, 0);
}

/** A tool result marked as an error. */
export function addFailed(stats: TranscriptStats, toolName: string): void {
  bump(stats.failedByTool, toolName);
}

export function addFinding(stats: TranscriptStats, finding: Finding): void {
  switch (finding.type) {
    case 'call': {
      stats.calls++;
      addAlong(stats, finding.file, finding.line ?? 1, 0, 1);
      bump(stats.byTool, finding.toolName);
      bump(stats.byServer, finding.serverName);
      bump(stats.byFormat, finding.format);
      stats.argumentChars += JSON.stringify(finding.arguments).length;
      const {
        type: _t,
        id: _i,
        arguments: _a,
        format: _f,
        toolName,
        serverName,
        chars,
        durationMs,
        ...location
      } = finding;
      const ranked: RankedCall = {
        toolName,
        serverName,
        location,
        chars,
        ...(durationMs !== undefined && { durationMs }),
      };
      rank(stats.largest, ranked, bySize);
      if (durationMs !== undefined) rank(stats.slowest, ranked, byDuration);
      break;
    }
    case 'quoted':
      stats.quoted++;
      break;
    case 'example':
      stats.examples++;
      break;
    case 'error':
      bump(stats.errorsByCode, finding.code);
      if (finding.format !== undefined) bump(stats.errorsByFormat, finding.format);
      break;
    case 'warning':
      bump(stats.warningsByCode, finding.code);
      break;
  }
}

export function addAssistant(
  stats: TranscriptStats,
  textChars: number,
  thinkingChars: number,
): void {
  stats.assistantTextChars += textChars;
  stats.assistantThinkingChars += thinkingChars;
}

/** `into` plus `from` (per-worker or per-file stats into the total). */
export function mergeStats(into: TranscriptStats, from: TranscriptStats): TranscriptStats {
  for (const key of [
    'files',
    'bytes',
    'calls',
    'quoted',
    'messages',
    'examples',
    'assistantTextChars',
    'assistantThinkingChars',
    'argumentChars',
  ] as const)
    into[key] += from[key];
  for (const key of [
    'byTool',
    'failedByTool',
    'byServer',
    'byFormat',
    'errorsByCode',
    'errorsByFormat',
    'warningsByCode',
  ] as const)
    for (const [name, n] of Object.entries(from[key])) bump(into[key], name, n);
  into.alongLog = mergeAlong(into.alongLog, from.alongLog);
  for (const c of from.largest) rank(into.largest, c, bySize);
  for (const c of from.slowest) rank(into.slowest, c, byDuration);
  return into;
}

/**
 * Counts most first, ties in byte order of their names: the order `stats` prints and writes
 * them in, the same whatever order the files were read in (one process, worker threads, the
 * parts of a cluster run).
 */
export const countsInOrder = (counts: Record<string, number>): Array<[string, number]> =>
  Object.entries(counts).sort((a, b) => b[1] - a[1] || compareBytes(a[0], b[0]));

/** The stats with each table of counts in `countsInOrder`. */
export function statsInOrder(stats: TranscriptStats): TranscriptStats {
  const ordered = (counts: Record<string, number>) => Object.fromEntries(countsInOrder(counts));
  return {
    ...stats,
    byTool: ordered(stats.byTool),
    failedByTool: ordered(stats.failedByTool),
    byServer: ordered(stats.byServer),
    byFormat: ordered(stats.byFormat),
    errorsByCode: ordered(stats.errorsByCode),
    errorsByFormat: ordered(stats.errorsByFormat),
    warningsByCode: ordered(stats.warningsByCode),
  };
}

const sum = (counts: Record<string, number>) => Object.values(counts).reduce((a, b) => a + b, 0);

/** The rates people ask about, from the counts. */
export function summarizeStats(stats: TranscriptStats) {
  const malformed = sum(stats.errorsByCode);
  const attempts = stats.calls + malformed;
  const assistantChars = stats.assistantTextChars + stats.assistantThinkingChars;
  return {
    malformedCalls: malformed,
    malformedRate: attempts === 0 ? 0 : malformed / attempts,
    deprecatedJsonCalls: stats.byFormat.json ?? 0,
    thinkingShare: assistantChars === 0 ? 0 : stats.assistantThinkingChars / assistantChars,
    averageArgumentChars: stats.calls === 0 ? 0 : stats.argumentChars / stats.calls,
  };
}
