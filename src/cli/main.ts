#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { redactUrlsIn } from '../messages/redact-url.js';
import { CliError, type Command, didYouMean, UsageError } from './command.js';

/**
 * The commands, each imported when it is used: `--version` and `help` load none of them, so
 * they answer at once instead of after every command's dependencies (~200 ms on this machine).
 */
interface CommandEntry {
  name: string;
  summary: string;
  load: () => Promise<Command>;
}
const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'parse',
    summary: 'read model output or transcripts and print the tool calls in them',
    load: async () => (await import('./parse-command.js')).parseCommand,
  },
  {
    name: 'stats',
    summary: 'count calls, malformed calls, thinking and sizes in model output or logs',
    load: async () => (await import('./stats-command.js')).statsCommand,
  },
  {
    name: 'run',
    summary: 'run an agent against an OpenAI-compatible model server',
    load: async () => (await import('./run-command.js')).runCommand,
  },
  {
    name: 'demo',
    summary: 'a whole session against a bundled replay model (what npm start runs)',
    load: async () => (await import('./demo-command.js')).demoCommand,
  },
  {
    name: 'grammar',
    summary: 'a GBNF or Lark grammar of valid calls, for constrained decoding',
    load: async () => (await import('./grammar-command.js')).grammarCommand,
  },
  {
    name: 'serve',
    summary: 'an OpenAI-compatible proxy that gives tool calls to a model without them',
    load: async () => (await import('./serve-command.js')).serveCommand,
  },
  {
    name: 'replay',
    summary:
      'a stand-in model server that answers with recorded replies, for trying tagcall offline',
    load: async () => (await import('./replay-command.js')).replayCommand,
  },
];

const USAGE = `Usage: tagcall <command> [options]

Commands:
${COMMANDS.map((c) => `  ${c.name.padEnd(10)}${c.summary}`).join('\n')}

tagcall <command> --help (or tagcall help <command>) shows a command's options;
tagcall --version its version.
`;

const version = () =>
  (
    JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === '--version' || name === '-V' || name === 'version') {
    process.stdout.write(`tagcall ${version()}\n`);
    return 0;
  }
  if (name === '-h' || name === '--help' || name === 'help') {
    const about = COMMANDS.find((c) => c.name === rest[0]);
    if (about === undefined && rest[0] !== undefined) throw unknownCommand(rest[0]);
    process.stdout.write(about === undefined ? USAGE : (await about.load()).usage);
    return 0;
  }
  if (name === undefined) {
    process.stderr.write(USAGE);
    return 2;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined) throw unknownCommand(name);
  return (await command.load()).main(rest);
}

function unknownCommand(name: string): UsageError {
  // Options go after the command (`tagcall parse --glob …`); before it only --help, --version.
  if (name.startsWith('-')) return new UsageError(`unknown option ${name}`, USAGE);
  const near = didYouMean(
    name,
    COMMANDS.map((c) => c.name),
  );
  return new UsageError(
    `unknown command "${name}"${near === undefined ? '' : ` (did you mean ${near}?)`}`,
    USAGE,
  );
}

/**
 * A usage mistake in one line, the command's synopsis and where its options are, not the whole
 * help (which buried the line that mattered).
 */
function usageMistake(error: UsageError): string {
  const name = COMMANDS.find((c) => c.name === process.argv[2])?.name;
  const synopsis = error.usage.split('\n')[0];
  const help = name === undefined ? 'tagcall --help' : `tagcall help ${name}`;
  return `tagcall: ${error.message}\n${synopsis}\n'${help}' lists ${name === undefined ? 'the commands' : 'its options'}.\n`;
}

/** A system error said in words, or null. */
function systemError(error: unknown): string | null {
  const e = error as NodeJS.ErrnoException & { address?: string; port?: number };
  switch (e?.code) {
    case 'ENOENT':
      return `${e.path}: no such file or directory`;
    case 'EISDIR':
      return `${e.path}: is a folder, not a file`;
    case 'EACCES':
      return `${e.path ?? e.address}: permission denied`;
    case 'EADDRINUSE':
      return `${e.address}:${e.port} is already in use; choose another --port (0: any free port)`;
    default:
      return null;
  }
}

// The reader of the output went away (`| head`): stop quietly, as `cat` does.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  process.exit(0);
});

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof UsageError) {
      // A usage error's value is shown through redactUrl where it is made (its forms, such as
      // postgres://USER@HOST, are not URLs to hide).
      process.stderr.write(usageMistake(error));
      process.exitCode = 2;
      return;
    }
    // One line for the user, in words (not Node's `ENOENT: …, open '…'`); the stack only when
    // asked for. A file that cannot be read fails the command (1), as for `cat`.
    const system = systemError(error);
    const message = system ?? (error instanceof Error ? error.message : String(error));
    // Whatever a driver or a runtime said, a URL in it is shown without its user and password.
    process.stderr.write(`tagcall: ${redactUrlsIn(message)}\n`);
    if (!(error instanceof CliError) && process.env.TAGCALL_DEBUG)
      process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = 1;
  },
);
