#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { PARSER_DEFAULTS, type PrefilledThinking } from '../index.js';
import { OUTPUT_FORMATS, type OutputFormat, runParse } from './parse-command.js';

const USAGE = `Usage: tagcall parse [FILE…|-] [options]

Reads model output (plain text) and prints its text, thinking and tool calls.
With no FILE, or with -, reads standard input.

Options:
  --format json|ndjson|pretty   json: one object per input (default)
                                ndjson: one line per call, error and warning
                                pretty: for people, colored on a terminal
  --prefilled-thinking auto|always|never
                                whether the reply starts inside <think> (default auto)
  --max-hold N                  most characters held undecided (default ${PARSER_DEFAULTS.maxHold})
  -h, --help                    this text
`;

class UsageError extends Error {}

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  flag: string,
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, not "${value}"`);
  }
  return value as T;
}

async function main(argv: string[]): Promise<number> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
        format: { type: 'string' },
        'prefilled-thinking': { type: 'string' },
        'max-hold': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(USAGE);
    return 0;
  }
  const [command, ...sources] = positionals;
  if (command !== 'parse')
    throw new UsageError(
      command === undefined ? 'no command given' : `unknown command "${command}"`,
    );
  const format = oneOf(values.format as string | undefined, OUTPUT_FORMATS, '--format') ?? 'json';
  const prefilledThinking = oneOf<PrefilledThinking>(
    values['prefilled-thinking'] as string | undefined,
    ['auto', 'always', 'never'],
    '--prefilled-thinking',
  );
  const maxHoldText = values['max-hold'] as string | undefined;
  const maxHold = maxHoldText === undefined ? undefined : Number(maxHoldText);
  if (maxHold !== undefined && !(Number.isInteger(maxHold) && maxHold > 0)) {
    throw new UsageError('--max-hold must be a positive whole number');
  }
  if (sources.length === 0) {
    if (process.stdin.isTTY) throw new UsageError('no FILE given and standard input is a terminal');
    sources.push('-');
  }
  await runParse(sources, format as OutputFormat, { prefilledThinking, maxHold }, process.stdout);
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      process.stderr.write(`tagcall: ${error.message}\n\n${USAGE}`);
      process.exitCode = 2;
      return;
    }
    const code = (error as NodeJS.ErrnoException).code;
    process.stderr.write(
      `tagcall: ${code === 'ENOENT' ? (error as Error).message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
