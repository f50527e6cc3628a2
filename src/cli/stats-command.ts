import { readFile, writeFile } from 'node:fs/promises';
import {
  createStats,
  mergeStats,
  summarizeStats,
  type TranscriptStats,
} from '../transcripts/index.js';
import { countsInOrder, statsInOrder } from '../transcripts/stats.js';
import { CliError, defineCommand, UsageError } from './command.js';
import { mine } from './mine.js';
import { MINING_FLAGS, MINING_USAGE, miningSettings } from './mining-flags.js';
import { byteSize, counted } from './quantities.js';
import { statsHtml } from './stats-html.js';

/** The stats as `--json` prints them: the counts and the rates derived from them. */
export function statsJson(stats: TranscriptStats) {
  return { ...statsInOrder(stats), ...summarizeStats(stats) };
}

/** The text `stats --json` prints (and `parse --stats-out` writes). */
export const statsJsonText = (stats: TranscriptStats) =>
  `${JSON.stringify(statsJson(stats), null, 2)}\n`;

const table = (title: string, counts: Record<string, number>, total: number): string[] => {
  const rows = countsInOrder(counts);
  if (rows.length === 0) return [];
  const width = Math.max(title.length, ...rows.map(([name]) => name.length));
  return [
    `${title.padEnd(width)}  ${'count'.padStart(9)}  share`,
    ...rows.map(
      ([name, n]) =>
        `${name.padEnd(width)}  ${n.toLocaleString('en').padStart(9)}  ${total === 0 ? '' : `${((100 * n) / total).toFixed(1)}%`}`,
    ),
    '',
  ];
};

const where = (c: TranscriptStats['largest'][number]) =>
  `${c.location.file}${c.location.line !== undefined ? `:${c.location.line}` : ''}${c.location.messageIndex !== undefined ? ` message ${c.location.messageIndex}` : ''} @${c.location.offset}`;

/** The stats as a table for people. */
export function formatStats(stats: TranscriptStats): string {
  const s = summarizeStats(stats);
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `${counted(stats.files, 'file')}, ${byteSize(stats.bytes)}`,
    `${counted(stats.calls, 'call')}, ${s.malformedCalls.toLocaleString('en')} malformed (${pct(s.malformedRate)}), ${stats.quoted.toLocaleString('en')} quoted (in user messages or tool results), ${counted(stats.examples, 'example')} (in system prompts); neither counted as calls`,
    ...(s.deprecatedJsonCalls === 0
      ? []
      : [`${counted(s.deprecatedJsonCalls, 'call')} in the deprecated JSON form`]),
    `thinking share of assistant output: ${pct(s.thinkingShare)}`,
    `average arguments size: ${s.averageArgumentChars.toFixed(0)} characters (as JSON)`,
    '',
    ...table('tool', stats.byTool, stats.calls),
    ...table('server', stats.byServer, stats.calls),
    ...table('format', stats.byFormat, stats.calls),
    ...table('error', stats.errorsByCode, s.malformedCalls),
    ...table('malformed call format', stats.errorsByFormat, s.malformedCalls),
    ...table(
      'warning',
      stats.warningsByCode,
      Object.values(stats.warningsByCode).reduce((a, b) => a + b, 0),
    ),
  ];
  if (stats.largest.length > 0) {
    lines.push('largest calls:');
    for (const c of stats.largest)
      lines.push(`  ${c.chars.toLocaleString('en').padStart(9)} chars  ${c.toolName}  ${where(c)}`);
    lines.push('');
  }
  if (stats.slowest.length > 0) {
    lines.push('slowest calls:');
    for (const c of stats.slowest)
      lines.push(`  ${String(c.durationMs).padStart(9)} ms  ${c.toolName}  ${where(c)}`);
    lines.push('');
  }
  return `${lines.join('\n')}\n`;
}

/** A part's counts from its `stats --json` output (the derived rates are computed again). */
async function readPart(path: string): Promise<TranscriptStats> {
  const text = await readFile(path, 'utf8');
  let part: unknown;
  try {
    part = JSON.parse(text);
  } catch (error) {
    throw new CliError(
      `${path}: not JSON (${(error as Error).message}); --merge reads the output of stats --json`,
    );
  }
  const counts = createStats();
  const fields = part as Record<string, unknown>;
  for (const key of Object.keys(counts) as Array<keyof TranscriptStats>) {
    const expected = Array.isArray(counts[key]) ? 'array' : typeof counts[key];
    const value = fields?.[key];
    const actual = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
    if (actual !== expected)
      throw new CliError(
        `${path}: "${key}" is ${actual}, not ${expected}; --merge reads the output of stats --json`,
      );
  }
  return mergeStats(counts, part as TranscriptStats);
}

const USAGE = `Usage: tagcall stats [PATH…|-] [options]
       tagcall stats --merge PART.json… [--json]

Counts what is in model output or transcripts: calls per tool and per server, malformed calls
by error code, deprecated JSON form, thinking share, average arguments size, the largest and
slowest calls.

Options:
  --json                a JSON object instead of the table
  --html FILE           also write a report to FILE: one self-contained HTML page (charts and
                        tables, no network needed) to open in a browser
  --merge               the PATHs are outputs of stats --json (parts of a log read apart, e.g.
                        on a cluster): print their sum, the same as the stats of the whole
${MINING_USAGE}
  -h, --help            this text
`;

export const statsCommand = defineCommand({
  name: 'stats',
  usage: USAGE,
  positionals: true,
  options: {
    json: { type: 'boolean' },
    merge: { type: 'boolean' },
    html: { type: 'string' },
    ...MINING_FLAGS,
  },
  async run(flags, usage) {
    let stats: TranscriptStats;
    if (flags.values.merge === true) {
      if (flags.positionals.length === 0)
        throw new UsageError('--merge needs the parts to merge', usage);
      stats = createStats();
      for (const path of flags.positionals) mergeStats(stats, await readPart(path));
    } else stats = await mine({ ...miningSettings(flags, usage), mode: 'stats' });
    const html = flags.values.html;
    if (typeof html === 'string') {
      const read = flags.positionals.length === 0 ? ['-'] : flags.positionals;
      await writeFile(html, statsHtml(stats, `tagcall stats: ${read.join(' ')}`));
    }
    process.stdout.write(flags.values.json === true ? statsJsonText(stats) : formatStats(stats));
    return 0;
  },
});
