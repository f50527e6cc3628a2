import { closeSync, openSync } from 'node:fs';
import { open, stat, writeFile } from 'node:fs/promises';
import { createParser, PARSER_DEFAULTS, type ParseOptions } from '../protocol/index.js';
import { layoutOf } from '../transcripts/index.js';
import { defineCommand, oneOf, positiveInteger, UsageError } from './command.js';
import { createJsonReplyWriter } from './json-reply.js';
import { mine } from './mine.js';
import { MINING_FLAGS, MINING_USAGE, miningSettings } from './mining-flags.js';
import { createPrettyWriter, useColor } from './pretty.js';
import { readChunks } from './read-chunks.js';
import { statsJsonText } from './stats-command.js';

export type OutputFormat = 'json' | 'ndjson' | 'pretty';
export const OUTPUT_FORMATS: readonly OutputFormat[] = ['json', 'ndjson', 'pretty'];

/**
 * Parses each source in turn as one reply and writes it in `format` (json or pretty) to `out`
 * as it streams: memory stays bounded whatever the size (see json-reply.ts and pretty.ts).
 * Says on stderr when a source looks like a transcript instead of one reply.
 */
export async function runParse(
  sources: readonly string[],
  format: Exclude<OutputFormat, 'ndjson'>,
  options: ParseOptions,
  out: NodeJS.WriteStream,
  warnTranscripts: boolean,
): Promise<void> {
  const color = useColor(out);
  for (const source of sources) {
    const name = source === '-' ? '<stdin>' : source;
    const writer =
      format === 'json' ? createJsonReplyWriter(out) : createPrettyWriter(name, out, color);
    const parser = createParser({ ...options, onEvent: writer.add });
    let first = true;
    for await (const chunk of readChunks(source)) {
      if (
        first &&
        warnTranscripts &&
        layoutOf(chunk.slice(0, chunk.indexOf('\n') + 1 || chunk.length)) !== 'text'
      )
        process.stderr.write(
          `tagcall parse: ${source === '-' ? 'standard input' : source} looks like a transcript (JSON); --format ${format} reads it as one reply: use --format ndjson to read it message by message, or --input text to say it is one reply\n`,
        );
      first = false;
      parser.feed(chunk);
      await writer.flush();
    }
    parser.end();
    await writer.end();
  }
}

/** Whether a file's first line (up to 1 MiB) says it is a JSON or JSONL transcript. */
async function looksLikeTranscript(path: string): Promise<boolean> {
  const file = await open(path, 'r').catch(() => null);
  if (file === null) return false;
  try {
    const head = Buffer.alloc(1024 * 1024);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    const text = head.toString('utf8', 0, bytesRead);
    return layoutOf(text.slice(0, text.indexOf('\n') + 1 || text.length)) !== 'text';
  } finally {
    await file.close();
  }
}

const USAGE = `Usage: tagcall parse [PATH…|-] [options]

Reads model output or transcripts and prints the tool calls in them. A PATH is a file or a
directory (read recursively); with none, or with -, standard input.

Options:
  --format F            json: one object per file, read as one reply (the default for one
                        file of model output, or standard input)
                        ndjson: one line per call, error, warning and quoted call, with its
                        source (the default for directories, several files, and a file that
                        is a transcript); transcripts (OpenAI, Anthropic, audit-log JSON or
                        JSONL) are read message by message, and only assistant messages make
                        calls
                        pretty: for people, colored on a terminal
${MINING_USAGE}
  --out FILE            the NDJSON to FILE instead of standard output
  --stats-out FILE      also count what stats counts, in the same pass, and write it to FILE
                        as stats --json does: a cluster's part writes its findings and its
                        stats in one run (parts add up with stats --merge)
  --prefilled-thinking auto|always|never
                        whether a reply starts inside <think> (json, pretty; default ${PARSER_DEFAULTS.prefilledThinking})
  --max-hold N          most characters held undecided (default ${PARSER_DEFAULTS.maxHold})
  -h, --help            this text
`;

export const parseCommand = defineCommand({
  name: 'parse',
  usage: USAGE,
  positionals: true,
  options: {
    format: { type: 'string' },
    'prefilled-thinking': { type: 'string' },
    'max-hold': { type: 'string' },
    out: { type: 'string' },
    'stats-out': { type: 'string' },
    ...MINING_FLAGS,
  },
  async run(flags, usage) {
    const { values } = flags;
    const settings = miningSettings(flags, usage);
    const isDirectory = (source: string) =>
      source !== '-' &&
      stat(source).then(
        (s) => s.isDirectory(),
        () => false,
      );
    const hasDirectory = (await Promise.all(settings.sources.map(isDirectory))).some(Boolean);
    const asked = oneOf(values.format, OUTPUT_FORMATS, '--format', usage);
    const { range, firstLine, source } = settings.part;
    const inPart = range !== undefined || firstLine !== undefined || source !== undefined;
    const { out, 'stats-out': statsOut } = values;
    const toFiles = out !== undefined || statsOut !== undefined;
    if (
      (inPart || toFiles || settings.filesFrom !== undefined) &&
      asked !== undefined &&
      asked !== 'ndjson'
    )
      throw new UsageError(
        '--range, --source, --first-line, --files-from, --out and --stats-out write --format ndjson',
        usage,
      );
    const single = settings.sources.length === 1 && !hasDirectory;
    // One file of model output is one reply; one file that is a transcript is read as one.
    const format =
      asked ??
      (!inPart &&
      !toFiles &&
      single &&
      (settings.sources[0] === '-' ||
        settings.scan.input === 'text' ||
        !(await looksLikeTranscript(settings.sources[0])))
        ? 'json'
        : 'ndjson');
    if (format === 'ndjson') {
      const outputFd = out === undefined ? undefined : openSync(out, 'w');
      try {
        const stats = await mine({
          ...settings,
          mode: statsOut === undefined ? 'ndjson' : 'ndjson+stats',
          outputFd,
        });
        if (statsOut !== undefined) await writeFile(statsOut, statsJsonText(stats));
      } finally {
        if (outputFd !== undefined) closeSync(outputFd);
      }
      return 0;
    }
    if (hasDirectory)
      throw new UsageError(
        `--format ${format} reads one reply per file; use ndjson for a directory`,
        usage,
      );
    await runParse(
      settings.sources,
      format,
      {
        prefilledThinking: oneOf(
          values['prefilled-thinking'],
          ['auto', 'always', 'never'] as const,
          '--prefilled-thinking',
          usage,
        ),
        maxHold: positiveInteger(values['max-hold'], '--max-hold', usage),
        dialect: settings.scan.dialect,
        toolNames: settings.scan.toolNames,
      },
      process.stdout,
      settings.scan.input !== 'text',
    );
    return 0;
  },
});
