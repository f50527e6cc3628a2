#!/usr/bin/env node
import { stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { DIALECTS, PARSER_DEFAULTS, type PrefilledThinking } from '../protocol/index.js';
import { TRANSCRIPT_FORMATS } from '../transcripts/index.js';
import { runDemo } from './demo-command.js';
import { runGrammar } from './grammar-command.js';
import { mine } from './mine.js';
import { OUTPUT_FORMATS, type OutputFormat, runParse } from './parse-command.js';
import { clientFromFlags, loadToolsModule, readMcpConfig, runSession } from './run-command.js';
import { runServe } from './serve-command.js';
import { formatStats, statsJson } from './stats-command.js';

const USAGE = `Usage: tagcall <command> [options]

Commands:
  parse [PATH…|-]   read model output or transcripts and print the tool calls in them
  stats [PATH…|-]   count calls, malformed calls, thinking and sizes in model output or logs
  run "TASK"        run an agent against an OpenAI-compatible model server
  demo              a whole session against a bundled replay model (what npm start runs)
  grammar           a GBNF or Lark grammar of valid calls, for constrained decoding
  serve             an OpenAI-compatible proxy that gives tool calls to a model without them

tagcall <command> --help shows a command's options.
`;

const MINING_OPTIONS = `  --dialect D           tagcall (default), anthropic-xml, qwen3-coder, hermes, cline, or auto
  --tool-names A,B      tool names, for the cline dialect (and auto)
  --input F             how files are read: text, openai, anthropic, audit-log
                        (default: told from each file's content)
  --glob PATTERN        files of a directory to read, e.g. '**/*.jsonl' (default: all)
  --jobs N              worker threads across files (default: the number of cores)
  --no-progress         no progress bar on stderr (it shows only on a terminal)`;

const PARSE_USAGE = `Usage: tagcall parse [PATH…|-] [options]

Reads model output or transcripts and prints the tool calls in them. A PATH is a file or a
directory (read recursively); with none, or with -, standard input.

Options:
  --format F            json: one object per file, read as one reply (the default for one
                        file or standard input)
                        ndjson: one line per call, error, warning and quoted call, with its
                        source (the default otherwise); transcripts (OpenAI, Anthropic,
                        audit-log JSON or JSONL) are read message by message, and only
                        assistant messages make calls
                        pretty: for people, colored on a terminal
${MINING_OPTIONS}
  --prefilled-thinking auto|always|never
                        whether a reply starts inside <think> (json, pretty; default auto)
  --max-hold N          most characters held undecided (default ${PARSER_DEFAULTS.maxHold})
  -h, --help            this text
`;

const STATS_USAGE = `Usage: tagcall stats [PATH…|-] [options]

Counts what is in model output or transcripts: calls per tool and per server, malformed calls
by error code, deprecated JSON form, thinking share, average arguments size, the largest and
slowest calls.

Options:
  --json                a JSON object instead of the table
${MINING_OPTIONS}
  -h, --help            this text
`;

const RUN_USAGE = `Usage: tagcall run "TASK" --base-url URL --model NAME [options]

Runs the agent loop: the model (no native tools needed) calls tools in the text protocol,
tagcall parses its stream, dispatches the calls and feeds the results back, until the model
calls task_completion. The session streams to stderr; the final answer goes to stdout.

Options:
  --base-url URL        OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 (llama.cpp),
                        http://127.0.0.1:8000/v1 (vLLM), http://127.0.0.1:11434/v1 (Ollama)
  --model NAME          the model name the server expects
  --api-key KEY         bearer token (default: $TAGCALL_API_KEY or $OPENAI_API_KEY)
  --mcp FILE            MCP servers, as {"mcpServers": {"name": {"command", "args", "env"} | {"url"}}}
  --tools FILE          a JS module exporting an array of defineTool(...) definitions
  --workspace DIR       folder the file tools are confined to (default: the current one)
  --max-turns N         stop after N model replies (default 25)
  --thread ID           keep the conversation in .tagcall/threads/ID.jsonl and continue it
  --audit FILE          append the audit log (every turn, call decision and timing) as JSONL
  --system TEXT         text put before the tool prompt in the system message
  --stop-after-tool     end each reply right after its first </tool>
  --timeout-ms N        per model request (default 120000)
  --json                print events as NDJSON on stdout instead of the session view
  -h, --help            this text

Built-in tools: read_file, write_to_file, list_files, search_files (inside the workspace;
paths that escape it are refused), task_completion.
`;

const GRAMMAR_USAGE = `Usage: tagcall grammar [--tools tools.json | --mcp mcp.json] [options]

Prints a grammar that admits only valid calls of the given tools (with free text around them
unless --calls-only): GBNF for llama.cpp, Lark for vLLM / xgrammar. With neither --tools nor
--mcp, the built-in workspace tools.

Options:
  --tools FILE        JSON array of {"name", "inputSchema", "serverName"?, "description"?}
  --mcp FILE          MCP servers ({"mcpServers": {...}}): their tools, listed live
  --format F          gbnf (default) or lark: the grammar alone;
                      llama.cpp: the request fields of a lazy grammar that engages at <tool>
                      ({"grammar", "grammar_lazy", "grammar_triggers"});
                      xgrammar: {"response_format": structural tag with trigger <tool>}
                      for vLLM / SGLang
  --calls-only        no free text: only [thinking] lines and calls (for tool_choice
                      "required": with llama.cpp/xgrammar, a grammar that is not lazy)
  --max-calls N       most calls per reply (default 4)
  -h, --help          this text
`;

const SERVE_USAGE = `Usage: tagcall serve --upstream URL [options]

An OpenAI-compatible server (POST /v1/chat/completions, GET /v1/models) in front of a model
server without native tool calling: requests with "tools" go upstream in the text protocol,
and replies come back with native tool_calls (streamed as delta.tool_calls), thinking as
reasoning_content. Requests without tools pass through unchanged.

Options:
  --upstream URL        the model server, e.g. http://127.0.0.1:8080/v1 (llama.cpp),
                        http://127.0.0.1:11434/v1 (Ollama)
  --port N              default 4000 (0: any free port)
  --host ADDR           default 127.0.0.1
  --model-map A=B       serve model A as upstream model B (repeatable)
  --grammar llama.cpp   send a generated grammar with tool requests (lazy for tool_choice auto)
  --api-key KEY         sent upstream (default: the client's Authorization header)
  --require-key KEY     clients must send "Authorization: Bearer KEY" (default: $TAGCALL_SERVE_KEY;
                        none); it is never passed upstream
  --allowed-host NAME   a Host name to serve besides IP addresses and localhost (repeatable;
                        other names get 403, against DNS rebinding)
  --max-body-bytes N    larger requests get 413 (default 4194304)
  --connect-timeout-ms N  wait for the upstream's headers, then 504 (default 120000)
  --idle-timeout-ms N   longest pause in the upstream's answer, then 504 (default 120000)
  -h, --help            this text
`;

class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
  }
}

function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  flag: string,
  usage: string,
): T | undefined {
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')}, not "${value}"`, usage);
  }
  return value as T;
}

function positiveInteger(
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

type Flags = {
  values: Record<string, string | boolean | string[] | undefined>;
  positionals: string[];
};

function args(
  argv: string[],
  options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }>,
  usage: string,
): Flags {
  try {
    return parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
    }) as Flags;
  } catch (error) {
    throw new UsageError((error as Error).message, usage);
  }
}

const MINING_FLAGS = {
  dialect: { type: 'string' },
  'tool-names': { type: 'string' },
  input: { type: 'string' },
  glob: { type: 'string' },
  jobs: { type: 'string' },
  'no-progress': { type: 'boolean' },
} as const;

/** The sources and scan settings both `parse` and `stats` take. */
function miningSettings(values: Flags['values'], positionals: string[], usage: string) {
  const sources = [...positionals];
  if (sources.length === 0) {
    if (process.stdin.isTTY)
      throw new UsageError('no PATH given and standard input is a terminal', usage);
    sources.push('-');
  }
  const toolNames = (values['tool-names'] as string | undefined)
    ?.split(',')
    .map((n) => n.trim())
    .filter(Boolean);
  return {
    sources,
    glob: values.glob as string | undefined,
    jobs: positiveInteger(values.jobs as string | undefined, '--jobs', usage),
    progress: values['no-progress'] !== true,
    scan: {
      dialect: oneOf(
        values.dialect as string | undefined,
        [...DIALECTS, 'auto'] as const,
        '--dialect',
        usage,
      ),
      toolNames,
      input: oneOf(values.input as string | undefined, TRANSCRIPT_FORMATS, '--input', usage),
    },
  };
}

async function parseCommand(argv: string[]): Promise<number> {
  const { values, positionals } = args(
    argv,
    {
      format: { type: 'string' },
      'prefilled-thinking': { type: 'string' },
      'max-hold': { type: 'string' },
      ...MINING_FLAGS,
    },
    PARSE_USAGE,
  );
  if (values.help) {
    process.stdout.write(PARSE_USAGE);
    return 0;
  }
  const settings = miningSettings(values, positionals, PARSE_USAGE);
  const isDirectory = (source: string) =>
    source !== '-' &&
    stat(source).then(
      (s) => s.isDirectory(),
      () => false,
    );
  const hasDirectory = (await Promise.all(settings.sources.map(isDirectory))).some(Boolean);
  const format =
    oneOf(values.format as string | undefined, OUTPUT_FORMATS, '--format', PARSE_USAGE) ??
    (settings.sources.length === 1 && !hasDirectory ? 'json' : 'ndjson');
  if (format === 'ndjson') {
    await mine({ ...settings, mode: 'ndjson' });
    return 0;
  }
  if (hasDirectory)
    throw new UsageError(
      `--format ${format} reads one reply per file; use ndjson for a directory`,
      PARSE_USAGE,
    );
  const prefilledThinking = oneOf<PrefilledThinking>(
    values['prefilled-thinking'] as string | undefined,
    ['auto', 'always', 'never'],
    '--prefilled-thinking',
    PARSE_USAGE,
  );
  const maxHold = positiveInteger(
    values['max-hold'] as string | undefined,
    '--max-hold',
    PARSE_USAGE,
  );
  await runParse(
    settings.sources,
    format as Exclude<OutputFormat, 'ndjson'>,
    {
      prefilledThinking,
      maxHold,
      dialect: settings.scan.dialect,
      toolNames: settings.scan.toolNames,
    },
    process.stdout,
  );
  return 0;
}

async function statsCommand(argv: string[]): Promise<number> {
  const { values, positionals } = args(
    argv,
    { json: { type: 'boolean' }, ...MINING_FLAGS },
    STATS_USAGE,
  );
  if (values.help) {
    process.stdout.write(STATS_USAGE);
    return 0;
  }
  const stats = await mine({ ...miningSettings(values, positionals, STATS_USAGE), mode: 'stats' });
  process.stdout.write(
    values.json === true ? `${JSON.stringify(statsJson(stats), null, 2)}\n` : formatStats(stats),
  );
  return 0;
}

async function runCommand(argv: string[]): Promise<number> {
  const { values, positionals } = args(
    argv,
    {
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'api-key': { type: 'string' },
      mcp: { type: 'string' },
      tools: { type: 'string' },
      workspace: { type: 'string' },
      'max-turns': { type: 'string' },
      thread: { type: 'string' },
      audit: { type: 'string' },
      system: { type: 'string' },
      'stop-after-tool': { type: 'boolean' },
      'timeout-ms': { type: 'string' },
      json: { type: 'boolean' },
    },
    RUN_USAGE,
  );
  if (values.help) {
    process.stdout.write(RUN_USAGE);
    return 0;
  }
  const task = positionals.join(' ').trim();
  if (task === '') throw new UsageError('no TASK given', RUN_USAGE);
  const baseUrl = values['base-url'] as string | undefined;
  const modelName = values.model as string | undefined;
  if (baseUrl === undefined || modelName === undefined)
    throw new UsageError('--base-url and --model are required', RUN_USAGE);
  const result = await runSession({
    task,
    model: clientFromFlags({
      baseUrl,
      model: modelName,
      apiKey:
        (values['api-key'] as string | undefined) ??
        process.env.TAGCALL_API_KEY ??
        process.env.OPENAI_API_KEY,
      stopAfterTool: values['stop-after-tool'] === true,
      timeoutMs: positiveInteger(
        values['timeout-ms'] as string | undefined,
        '--timeout-ms',
        RUN_USAGE,
      ),
    }),
    workspace: (values.workspace as string | undefined) ?? process.cwd(),
    mcpServers: values.mcp === undefined ? {} : await readMcpConfig(values.mcp as string),
    extraTools: values.tools === undefined ? [] : await loadToolsModule(values.tools as string),
    maxTurns: positiveInteger(values['max-turns'] as string | undefined, '--max-turns', RUN_USAGE),
    threadId: values.thread as string | undefined,
    auditFile: values.audit as string | undefined,
    system: values.system as string | undefined,
    json: values.json === true,
  });
  if (result.answer !== null && values.json !== true) process.stdout.write(`${result.answer}\n`);
  if (result.status !== 'completed' && result.status !== 'no-call')
    process.stderr.write(`tagcall: ${result.reason}\n`);
  return result.status === 'completed' || result.status === 'no-call' ? 0 : 1;
}

async function grammarCommand(argv: string[]): Promise<number> {
  const { values } = args(
    argv,
    {
      tools: { type: 'string' },
      mcp: { type: 'string' },
      format: { type: 'string' },
      'calls-only': { type: 'boolean' },
      'max-calls': { type: 'string' },
    },
    GRAMMAR_USAGE,
  );
  if (values.help) {
    process.stdout.write(GRAMMAR_USAGE);
    return 0;
  }
  const format =
    oneOf(
      values.format as string | undefined,
      ['gbnf', 'lark', 'llama.cpp', 'xgrammar'] as const,
      '--format',
      GRAMMAR_USAGE,
    ) ?? 'gbnf';
  process.stdout.write(
    await runGrammar({
      toolsFile: values.tools as string | undefined,
      mcpServers: values.mcp === undefined ? undefined : await readMcpConfig(values.mcp as string),
      format,
      callsOnly: values['calls-only'] === true,
      maxCalls: positiveInteger(
        values['max-calls'] as string | undefined,
        '--max-calls',
        GRAMMAR_USAGE,
      ),
    }),
  );
  return 0;
}

async function serveCommand(argv: string[]): Promise<number> {
  const { values } = args(
    argv,
    {
      upstream: { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      'model-map': { type: 'string', multiple: true },
      grammar: { type: 'string' },
      'api-key': { type: 'string' },
      'require-key': { type: 'string' },
      'allowed-host': { type: 'string', multiple: true },
      'max-body-bytes': { type: 'string' },
      'connect-timeout-ms': { type: 'string' },
      'idle-timeout-ms': { type: 'string' },
    },
    SERVE_USAGE,
  );
  if (values.help) {
    process.stdout.write(SERVE_USAGE);
    return 0;
  }
  const upstream = values.upstream as string | undefined;
  if (upstream === undefined) throw new UsageError('--upstream is required', SERVE_USAGE);
  const modelMap: Record<string, string> = {};
  for (const pair of (values['model-map'] as string[] | undefined) ?? []) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new UsageError(`--model-map wants A=B, got "${pair}"`, SERVE_USAGE);
    modelMap[pair.slice(0, at)] = pair.slice(at + 1);
  }
  const port =
    values.port === '0'
      ? 0
      : positiveInteger(values.port as string | undefined, '--port', SERVE_USAGE);
  return runServe({
    upstream,
    port: port ?? 4000,
    host: values.host as string | undefined,
    modelMap,
    grammar: oneOf(
      values.grammar as string | undefined,
      ['llama.cpp'] as const,
      '--grammar',
      SERVE_USAGE,
    ),
    apiKey: values['api-key'] as string | undefined,
    maxBodyBytes: positiveInteger(
      values['max-body-bytes'] as string | undefined,
      '--max-body-bytes',
      SERVE_USAGE,
    ),
    requireKey:
      (values['require-key'] as string | undefined) ?? process.env.TAGCALL_SERVE_KEY ?? undefined,
    allowedHosts: values['allowed-host'] as string[] | undefined,
    connectTimeoutMs: positiveInteger(
      values['connect-timeout-ms'] as string | undefined,
      '--connect-timeout-ms',
      SERVE_USAGE,
    ),
    idleTimeoutMs: positiveInteger(
      values['idle-timeout-ms'] as string | undefined,
      '--idle-timeout-ms',
      SERVE_USAGE,
    ),
  });
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'parse':
      return parseCommand(rest);
    case 'stats':
      return statsCommand(rest);
    case 'run':
      return runCommand(rest);
    case 'demo':
      return runDemo(rest.includes('--json'));
    case 'grammar':
      return grammarCommand(rest);
    case 'serve':
      return serveCommand(rest);
    case '-h':
    case '--help':
      process.stdout.write(USAGE);
      return 0;
    default:
      throw new UsageError(
        command === undefined ? 'no command given' : `unknown command "${command}"`,
        USAGE,
      );
  }
}

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
    const code = (error as NodeJS.ErrnoException).code;
    process.stderr.write(
      `tagcall: ${code === 'ENOENT' ? (error as Error).message : String(error)}\n`,
    );
    process.exitCode = 1;
  },
);
