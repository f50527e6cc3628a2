import type { Finding, Location } from './scan.js';

const TOP = 5;

export interface RankedCall {
  toolName: string;
  serverName: string;
  location: Location;
  chars: number;
  durationMs?: number;
}

/** What `tagcall stats` counts; every field adds up across files (see `mergeStats`). */
export interface TranscriptStats {
  files: number;
  bytes: number;
  calls: number;
  quoted: number;
  byTool: Record<string, number>;
  byServer: Record<string, number>;
  byFormat: Record<string, number>;
  errorsByCode: Record<string, number>;
  warningsByCode: Record<string, number>;
  assistantTextChars: number;
  assistantThinkingChars: number;
  argumentChars: number;
  largest: RankedCall[];
  slowest: RankedCall[];
}

export function createStats(): TranscriptStats {
  return {
    files: 0,
    bytes: 0,
    calls: 0,
    quoted: 0,
    byTool: {},
    byServer: {},
    byFormat: {},
    errorsByCode: {},
    warningsByCode: {},
    assistantTextChars: 0,
    assistantThinkingChars: 0,
    argumentChars: 0,
    largest: [],
    slowest: [],
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

export function addFinding(stats: TranscriptStats, finding: Finding): void {
  switch (finding.type) {
    case 'call': {
      stats.calls++;
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
    case 'error':
      bump(stats.errorsByCode, finding.code);
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
    'assistantTextChars',
    'assistantThinkingChars',
    'argumentChars',
  ] as const)
    into[key] += from[key];
  for (const key of ['byTool', 'byServer', 'byFormat', 'errorsByCode', 'warningsByCode'] as const)
    for (const [name, n] of Object.entries(from[key])) bump(into[key], name, n);
  for (const c of from.largest) rank(into.largest, c, bySize);
  for (const c of from.slowest) rank(into.slowest, c, byDuration);
  return into;
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
