import { statSync } from 'node:fs';
import { DEFAULT_DIALECT, isFamilyDialect } from '../protocol/dialect-names.js';
import { DIALECTS } from '../protocol/index.js';
import { TRANSCRIPT_FORMATS } from '../transcripts/index.js';
import { type Flags, oneOf, positiveInteger, UsageError } from './command.js';

/** The flags `parse` and `stats` share: what to read and how. */
export const MINING_FLAGS = {
  dialect: { type: 'string' },
  'tool-names': { type: 'string' },
  input: { type: 'string' },
  glob: { type: 'string' },
  jobs: { type: 'string' },
  'no-progress': { type: 'boolean' },
  range: { type: 'string' },
  source: { type: 'string' },
  'first-line': { type: 'string' },
  'files-from': { type: 'string' },
} as const;

export const MINING_USAGE = `  --dialect D           ${DEFAULT_DIALECT} (default), ${DIALECTS.filter(isFamilyDialect).join(', ')}, or auto
  --tool-names A,B      tool names, for the cline dialect (and auto)
  --input F             how files are read: ${TRANSCRIPT_FORMATS.join(', ')}
                        (default: told from each file's content)
  --glob PATTERN        files of a directory to read, e.g. '**/*.jsonl' (default: all)
  --jobs N              worker threads across files (default: the number of cores)
  --no-progress         no progress bar on stderr (it shows only on a terminal)
  --range START:END     of one JSONL file, only the records that start in bytes [START, END)
                        (ranges that tile a file read each record once; lines and ids are the
                        whole file's): a shard for a cluster's worker
  --source NAME         the name findings give their source (default: the path, <stdin>)
  --first-line N        the line number of standard input's first line in the file it was cut
                        from (default 1), so that lines and ids are that file's
  --files-from FILE     the paths to read, one a line (- for standard input), each read as it
                        comes: a long-lived worker that is handed files; writes ndjson`;

/** The sources and scan settings of `parse` and `stats`. */
export function miningSettings({ values, positionals }: Flags<typeof MINING_FLAGS>, usage: string) {
  const sources = [...positionals];
  const filesFrom = values['files-from'];
  if (filesFrom !== undefined) {
    if (sources.length > 0)
      throw new UsageError('--files-from names the paths to read: give no PATH besides it', usage);
    for (const flag of ['range', 'source', 'first-line'] as const)
      if (values[flag] !== undefined)
        throw new UsageError(`--${flag} reads one input; it does not go with --files-from`, usage);
    if (filesFrom === '-' && process.stdin.isTTY)
      throw new UsageError('--files-from -: standard input is a terminal', usage);
  } else if (sources.length === 0) {
    if (process.stdin.isTTY)
      throw new UsageError('no PATH given and standard input is a terminal', usage);
    sources.push('-');
  }
  let range: { start: number; end: number } | undefined;
  if (values.range !== undefined) {
    const match = /^(\d+):(\d+)$/.exec(values.range);
    if (match === null || Number(match[1]) > Number(match[2]))
      throw new UsageError(
        `--range ${values.range}: expected START:END, byte offsets, START <= END`,
        usage,
      );
    if (sources.length !== 1 || sources[0] === '-')
      throw new UsageError('--range reads a part of one file: give exactly one PATH', usage);
    if (statSync(sources[0], { throwIfNoEntry: false })?.isDirectory())
      throw new UsageError(`--range reads a part of one file; ${sources[0]} is a folder`, usage);
    range = { start: Number(match[1]), end: Number(match[2]) };
  }
  const firstLine = positiveInteger(values['first-line'], '--first-line', usage);
  if (firstLine !== undefined && (sources.length !== 1 || sources[0] !== '-'))
    throw new UsageError('--first-line numbers standard input (-): give no PATH or -', usage);
  if (values.source !== undefined && sources.length !== 1)
    throw new UsageError('--source names one input: give one PATH (or -)', usage);
  return {
    sources,
    filesFrom,
    part: { range, firstLine, source: values.source },
    glob: values.glob,
    jobs: positiveInteger(values.jobs, '--jobs', usage),
    progress: values['no-progress'] !== true,
    scan: {
      dialect: oneOf(values.dialect, [...DIALECTS, 'auto'] as const, '--dialect', usage),
      toolNames: values['tool-names']
        ?.split(',')
        .map((n) => n.trim())
        .filter(Boolean),
      input: oneOf(values.input, TRANSCRIPT_FORMATS, '--input', usage),
    },
  };
}
