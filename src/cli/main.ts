#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { CliError, type Command, UsageError } from './command.js';
import { demoCommand } from './demo-command.js';
import { grammarCommand } from './grammar-command.js';
import { parseCommand } from './parse-command.js';
import { replayCommand } from './replay-command.js';
import { runCommand } from './run-command.js';
import { serveCommand } from './serve-command.js';
import { statsCommand } from './stats-command.js';

const COMMANDS: readonly Command[] = [
  parseCommand,
  statsCommand,
  runCommand,
  demoCommand,
  grammarCommand,
  serveCommand,
  replayCommand,
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
    if (about === undefined && rest[0] !== undefined)
      throw new UsageError(`unknown command "${rest[0]}"`, USAGE);
    process.stdout.write(about?.usage ?? USAGE);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (command === undefined)
    throw new UsageError(
      name === undefined ? 'no command given' : `unknown command "${name}"`,
      USAGE,
    );
  return command.main(rest);
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
      process.stderr.write(`tagcall: ${error.message}\n\n${error.usage}`);
      process.exitCode = 2;
      return;
    }
    // One line for the user, in words (not Node's `ENOENT: …, open '…'`); the stack only when
    // asked for. A file that cannot be read fails the command (1), as for `cat`.
    const system = systemError(error);
    const message = system ?? (error instanceof Error ? error.message : String(error));
    process.stderr.write(`tagcall: ${message}\n`);
    if (!(error instanceof CliError) && process.env.TAGCALL_DEBUG)
      process.stderr.write(`${(error as Error).stack}\n`);
    process.exitCode = 1;
  },
);
