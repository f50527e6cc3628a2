import { appendFileSync, closeSync, openSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  AGENT_DEFAULTS,
  type AgentEvent,
  type AgentResult,
  budgetForContext,
  createOpenAIClient,
  MODEL_CLIENT_DEFAULTS,
  type ModelClient,
  PromptOverBudgetError,
  readContextSize,
  runAgent,
} from '../agent/index.js';
import { createJsonlStore, createMemory, loadMemory, type MessageStore } from '../memory/index.js';
import { createAuditLog, toJsonText } from '../messages/index.js';
import { DIALECTS, type Dialect } from '../protocol/index.js';
import {
  createToolbox,
  type McpServerConfig,
  type ToolDefinition,
  workspaceTools,
} from '../tools/index.js';
import { defineCommand, oneOf, positiveInteger, UsageError } from './command.js';
import { checkWorkspace, loadToolsModule, readMcpConfig } from './config-files.js';
import { useColor } from './pretty.js';
import { createSessionView } from './session-view.js';
import { storeFlag } from './store-flag.js';
import { httpUrlFlag } from './url-flag.js';

export interface RunSettings {
  task: string;
  model: ModelClient;
  workspace: string;
  mcpServers: Record<string, McpServerConfig>;
  extraTools: ToolDefinition[];
  maxTurns?: number;
  threadId?: string;
  /** Where the thread persists (default: the JSONL folder `.tagcall/threads`). */
  store?: () => MessageStore;
  system?: string;
  /** Append the audit log here, one JSON entry per line, each as it is recorded. */
  auditFile?: string;
  json: boolean;
  /** Tokens of the window sent to the model (default `AGENT_DEFAULTS.budget`, 32,000). */
  budget?: number;
  dialect?: Dialect | 'auto';
  /** End each reply where its first call ends. */
  stopAfterCall?: boolean;
}

/** Runs a session, showing it on stderr (or NDJSON events on stdout with `json`). */
export async function runSession(settings: RunSettings): Promise<AgentResult> {
  const toolbox = createToolbox({
    tools: [...workspaceTools(settings.workspace), ...settings.extraTools],
    mcpServers: settings.mcpServers,
  });
  const view = createSessionView(process.stderr, { color: useColor(process.stderr) });
  const onEvent = settings.json
    ? (event: AgentEvent) => process.stdout.write(`${JSON.stringify(event)}\n`)
    : view.onEvent;
  const auditFile = settings.auditFile;
  if (auditFile !== undefined) closeSync(openSync(auditFile, 'a')); // fail before the run, not in it
  const audit =
    auditFile === undefined
      ? undefined
      : createAuditLog([], {
          // Written at once and synchronously: a crash loses at most the entry being written.
          onRecord: (entry) => appendFileSync(auditFile, `${toJsonText(entry)}\n`),
        });
  const controller = new AbortController();
  const interrupt = () => controller.abort(new Error('interrupted'));
  process.once('SIGINT', interrupt);
  const budget = settings.budget ?? AGENT_DEFAULTS.budget;
  const store =
    settings.threadId === undefined
      ? null
      : (settings.store?.() ?? createJsonlStore({ dir: resolve('.tagcall/threads') }));
  try {
    const memory =
      store === null || settings.threadId === undefined
        ? createMemory({ budget })
        : (await loadMemory({ store, threadId: settings.threadId, budget })).memory;
    return await runAgent({
      model: settings.model,
      toolbox,
      task: settings.task,
      system: settings.system,
      memory,
      maxTurns: settings.maxTurns,
      dialect: settings.dialect,
      stopAfterCall: settings.stopAfterCall,
      onEvent,
      signal: controller.signal,
      audit,
    });
  } finally {
    process.off('SIGINT', interrupt);
    view.close();
    await toolbox.close();
    await store?.close();
  }
}

export function clientFromFlags(flags: {
  baseUrl: string;
  model: string;
  apiKey?: string;
  timeoutMs?: number;
}): ModelClient {
  return createOpenAIClient({
    baseUrl: flags.baseUrl,
    model: flags.model,
    apiKey: flags.apiKey,
    timeoutMs: flags.timeoutMs,
  });
}

const USAGE = `Usage: tagcall run "TASK" --base-url URL --model NAME [options]

Runs the agent loop: the model (no native tools needed) calls tools in the text protocol,
tagcall parses its stream, dispatches the calls and feeds the results back, until the model
calls task_completion. The session streams to stderr; the final answer goes to stdout.

Options:
  --base-url URL        OpenAI-compatible endpoint, e.g. http://127.0.0.1:8080/v1 (llama.cpp),
                        http://127.0.0.1:8000/v1 (vLLM), http://127.0.0.1:11434/v1 (Ollama)
  --model NAME          the model name the server expects
  --api-key KEY         bearer token (default: $TAGCALL_API_KEY or $OPENAI_API_KEY)
  --mcp FILE            MCP servers, as {"mcpServers": {"name": {"command", "args", "env"} | {"url"}}}
  --tools FILE          a JS module exporting an array of defineTool(...) definitions (with
                        handlers: a JSON tool list, as grammar --tools takes, cannot run)
  --workspace DIR       folder the file tools are confined to (default: the current one)
  --max-turns N         stop after N model replies (default ${AGENT_DEFAULTS.maxTurns})
  --budget N            tokens of the conversation sent each turn; by default the context size
                        the server reports (vLLM, llama.cpp, Ollama) less room for the reply,
                        else ${AGENT_DEFAULTS.budget}; keep it under the server's context (llama.cpp -c,
                        Ollama num_ctx)
  --dialect NAME        the call format the model's family was trained on: ${DIALECTS.join(', ')},
                        or auto (reads all of them; the prompt teaches <tool>). Default tagcall
  --thread ID           keep the conversation in .tagcall/threads/ID.jsonl and continue it
  --store S             where --thread keeps it: sqlite:PATH (a SQLite file, needs npm i libsql),
                        postgres://USER@HOST:PORT/DB (needs npm i pg) or jsonl:DIR (default
                        jsonl:.tagcall/threads)
  --audit FILE          append the audit log (every turn, call decision and timing) as JSONL
  --system TEXT         text put before the tool prompt in the system message
  --stop-after-tool     end each reply where its first call ends (in --dialect's format); the
                        rest of the reply is not read
  --timeout-ms N        the longest silence of the model server before a request is given up
                        (default ${MODEL_CLIENT_DEFAULTS.timeoutMs}); a stream that keeps coming is never cut
  --json                print events as NDJSON on stdout instead of the session view
  -h, --help            this text

Built-in tools: read_file, write_to_file, list_files, search_files (inside the workspace;
paths that escape it are refused), task_completion.
`;

export const runCommand = defineCommand({
  name: 'run',
  usage: USAGE,
  positionals: true,
  options: {
    'base-url': { type: 'string' },
    model: { type: 'string' },
    'api-key': { type: 'string' },
    mcp: { type: 'string' },
    tools: { type: 'string' },
    workspace: { type: 'string', default: '.' },
    'max-turns': { type: 'string' },
    budget: { type: 'string' },
    dialect: { type: 'string' },
    thread: { type: 'string' },
    store: { type: 'string' },
    audit: { type: 'string' },
    system: { type: 'string' },
    'stop-after-tool': { type: 'boolean' },
    'timeout-ms': { type: 'string' },
    json: { type: 'boolean' },
  },
  async run({ values, positionals }, usage) {
    const task = positionals.join(' ').trim();
    if (task === '') throw new UsageError('no TASK given', usage);
    const modelName = values.model;
    if (values['base-url'] === undefined || modelName === undefined)
      throw new UsageError('--base-url and --model are required', usage);
    const baseUrl = httpUrlFlag(values['base-url'], '--base-url', usage);
    const apiKey = values['api-key'] ?? process.env.TAGCALL_API_KEY ?? process.env.OPENAI_API_KEY;
    const asked = positiveInteger(values.budget, '--budget', usage);
    const store = storeFlag(values.store, values.thread, usage);
    const maxTurns = positiveInteger(values['max-turns'], '--max-turns', usage);
    const dialect = oneOf(values.dialect, [...DIALECTS, 'auto'] as const, '--dialect', usage);
    const model = clientFromFlags({
      baseUrl,
      model: modelName,
      apiKey,
      timeoutMs: positiveInteger(values['timeout-ms'], '--timeout-ms', usage),
    });
    const workspace = await checkWorkspace(values.workspace);
    const mcpServers = values.mcp === undefined ? {} : await readMcpConfig(values.mcp);
    const extraTools = values.tools === undefined ? [] : await loadToolsModule(values.tools);
    const context = await readContextSize({ baseUrl, model: modelName, apiKey });
    let budget = asked;
    if (context !== null && asked === undefined) {
      budget = budgetForContext(context.tokens);
      process.stderr.write(
        `context: ${context.tokens} tokens (${context.source}); the conversation gets ${budget} (--budget to choose)\n`,
      );
    } else if (context !== null && asked !== undefined && asked > context.tokens) {
      process.stderr.write(
        `tagcall: warning: --budget ${asked} is more than the server's context, ${context.tokens} tokens (${context.source}): the server will cut or refuse long conversations\n`,
      );
    }
    let result: AgentResult;
    try {
      result = await runSession({
        task,
        model,
        workspace,
        mcpServers,
        extraTools,
        maxTurns,
        budget,
        dialect,
        stopAfterCall: values['stop-after-tool'] === true,
        threadId: values.thread,
        store,
        auditFile: values.audit,
        system: values.system,
        json: values.json === true,
      });
    } catch (error) {
      // Not a failure of the run, which never started: the flags (or the server's context)
      // leave no room for the task.
      if (!(error instanceof PromptOverBudgetError)) throw error;
      process.stderr.write(`tagcall: ${error.message}\n`);
      return 2;
    }
    if (result.answer !== null && values.json !== true) process.stdout.write(`${result.answer}\n`);
    const done = result.status === 'completed' || result.status === 'no-call';
    if (!done) process.stderr.write(`tagcall: ${result.reason}\n`);
    // Ctrl-C ends the run as shells report an interrupted command.
    return done ? 0 : result.status === 'cancelled' ? 130 : 1;
  },
});
