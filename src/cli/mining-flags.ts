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
} as const;

export const MINING_USAGE = `  --dialect D           tagcall (default), ${DIALECTS.filter((d) => d !== 'tagcall').join(', ')}, or auto
  --tool-names A,B      tool names, for the cline dialect (and auto)
  --input F             how files are read: ${TRANSCRIPT_FORMATS.join(', ')}
                        (default: told from each file's content)
  --glob PATTERN        files of a directory to read, e.g. '**/*.jsonl' (default: all)
  --jobs N              worker threads across files (default: the number of cores)
  --no-progress         no progress bar on stderr (it shows only on a terminal)`;

/** The sources and scan settings of `parse` and `stats`. */
export function miningSettings({ values, positionals }: Flags<typeof MINING_FLAGS>, usage: string) {
  const sources = [...positionals];
  if (sources.length === 0) {
    if (process.stdin.isTTY)
      throw new UsageError('no PATH given and standard input is a terminal', usage);
    sources.push('-');
  }
  return {
    sources,
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
