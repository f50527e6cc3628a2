import { type ParseArgsConfig, parseArgs } from 'node:util';
import { distance } from 'fastest-levenshtein';

/** A mistake in how the command was called: exit 2, with the command's usage. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

/**
 * A failure the user can fix, said in one line (a file that is not what it should be, a server
 * that cannot start): exit 1, without a stack.
 */
export class CliError extends Error {}

type Options = NonNullable<ParseArgsConfig['options']>;

/** The parsed flags of a command, typed from its option declarations. */
export type Flags<O extends Options> = ReturnType<
  typeof parseArgs<{
    options: O & { help: { type: 'boolean'; short: 'h' } };
    allowPositionals: true;
  }>
>;

export interface CommandSpec<O extends Options> {
  name: string;
  /** One line for `tagcall --help`. */
  /** The whole `--help` text. */
  usage: string;
  options: O;
  /** Whether the command takes positional arguments (paths, a task). Default false. */
  positionals?: boolean;
  run(flags: Flags<O>, usage: string): Promise<number>;
}

export interface Command {
  name: string;
  usage: string;
  main(argv: string[]): Promise<number>;
}

/** A command: its flags parsed and typed, `--help` answered, a wrong flag a `UsageError`. */
export function defineCommand<const O extends Options>(spec: CommandSpec<O>): Command {
  return {
    name: spec.name,
    usage: spec.usage,
    async main(argv) {
      let flags: Flags<O>;
      try {
        flags = parseArgs({
          args: argv,
          allowPositionals: true,
          options: { ...spec.options, help: { type: 'boolean', short: 'h' } } as O & {
            help: { type: 'boolean'; short: 'h' };
          },
        });
      } catch (error) {
        throw new UsageError(flagMistake(error as Error & { code?: string }, spec), spec.usage);
      }
      // Every command has --help; inside this generic function its type is not yet known.
      if ((flags.values as { help?: boolean }).help === true) {
        process.stdout.write(spec.usage);
        return 0;
      }
      if (spec.positionals !== true && flags.positionals.length > 0)
        throw new UsageError(`unexpected argument "${flags.positionals[0]}"`, spec.usage);
      return spec.run(flags, spec.usage);
    },
  };
}

/** The closest of `names` to a mistyped `name` (a typo or two away), or undefined. */
export function didYouMean(name: string, names: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(1, Math.min(2, Math.floor(name.length / 3)));
  for (const candidate of names) {
    const d = distance(name, candidate);
    if (d <= bestDistance && (best === undefined || d < bestDistance)) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best;
}

/**
 * parseArgs's error in one line of ours: Node's text quotes the flag unevenly and explains
 * `--` for positionals ("Unknown option '--fromat'. To specify a positional argument starting
 * with a '-', place it at the end of the command after '--', as in '-- \"--fromat\"").
 */
function flagMistake(error: Error & { code?: string }, spec: { options: Options }): string {
  const flag = /'(-[^' ]*)/.exec(error.message)?.[1];
  if (flag === undefined) return error.message;
  const flags = [...Object.keys(spec.options).map((name) => `--${name}`), '--help'];
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const near = flag.startsWith('--') ? didYouMean(flag.split('=')[0], flags) : undefined;
      return `unknown option ${flag}${near === undefined ? '' : ` (did you mean ${near}?)`}`;
    }
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      return /does not take/.test(error.message)
        ? `${flag} takes no value`
        : `${flag} needs a value`;
    default:
      return error.message;
  }
}

/** `value` if it is one of `allowed`; a `UsageError` naming the flag otherwise. */
export function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  flag: string,
  usage: string,
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, not "${value}"`, usage);
  return value as T;
}

/** A TCP port: 0 (any free one) to 65535. */
export function port(value: string | undefined, flag: string, usage: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(Number.isInteger(n) && n >= 0 && n <= 65535) || value.trim() === '')
    throw new UsageError(`${flag} must be a port number from 0 (any free port) to 65535`, usage);
  return n;
}

/**
 * Waits for Ctrl-C (SIGINT) or SIGTERM; the exit code to end with: 130 for Ctrl-C, as shells
 * report an interrupted command, 0 for a requested stop.
 */
export function untilStopped(): Promise<number> {
  return new Promise((resolve) => {
    const stop = (code: number) => () => {
      process.off('SIGINT', interrupted);
      process.off('SIGTERM', terminated);
      resolve(code);
    };
    const interrupted = stop(130);
    const terminated = stop(0);
    process.once('SIGINT', interrupted);
    process.once('SIGTERM', terminated);
  });
}

export function positiveInteger(
  value: string | undefined,
  flag: string,
  usage: string,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!(Number.isInteger(n) && n > 0))
    throw new UsageError(`${flag} must be a positive whole number`, usage);
  return n;
}
