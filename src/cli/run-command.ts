import { appendFileSync, closeSync, openSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  type AgentEvent,
  type AgentResult,
  createOpenAIClient,
  type ModelClient,
  runAgent,
} from '../agent/index.js';
import { createJsonlStore, createMemory, loadMemory } from '../memory/index.js';
import { createAuditLog, toJsonText } from '../messages/index.js';
import {
  createToolbox,
  type McpServerConfig,
  type ToolDefinition,
  workspaceTools,
} from '../tools/index.js';
import { useColor } from './pretty.js';
import { createSessionView } from './session-view.js';

export interface RunSettings {
  task: string;
  model: ModelClient;
  workspace: string;
  mcpServers: Record<string, McpServerConfig>;
  extraTools: ToolDefinition[];
  maxTurns?: number;
  threadId?: string;
  system?: string;
  /** Append the audit log here, one JSON entry per line, each as it is recorded. */
  auditFile?: string;
  json: boolean;
}

/** `--mcp` file: `{"mcpServers": {...}}` (the common shape) or the map itself. */
export async function readMcpConfig(file: string): Promise<Record<string, McpServerConfig>> {
  const parsed = JSON.parse(await readFile(file, 'utf8')) as {
    mcpServers?: Record<string, McpServerConfig>;
  };
  return parsed.mcpServers ?? (parsed as Record<string, McpServerConfig>);
}

/** `--tools` module: a default export or a `tools` export, an array of tool definitions. */
export async function loadToolsModule(file: string): Promise<ToolDefinition[]> {
  const module = (await import(pathToFileURL(resolve(file)).href)) as {
    default?: ToolDefinition[];
    tools?: ToolDefinition[];
  };
  return module.tools ?? module.default ?? [];
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
  try {
    const memory =
      settings.threadId === undefined
        ? createMemory({ budget: 32_000 })
        : loadMemory({
            store: createJsonlStore({ dir: resolve('.tagcall/threads') }),
            threadId: settings.threadId,
            budget: 32_000,
          }).memory;
    return await runAgent({
      model: settings.model,
      toolbox,
      task: settings.task,
      system: settings.system,
      memory,
      maxTurns: settings.maxTurns,
      onEvent,
      signal: controller.signal,
      audit,
    });
  } finally {
    process.off('SIGINT', interrupt);
    view.close();
    await toolbox.close();
  }
}

export function clientFromFlags(flags: {
  baseUrl: string;
  model: string;
  apiKey?: string;
  stopAfterTool: boolean;
  timeoutMs?: number;
}): ModelClient {
  return createOpenAIClient({
    baseUrl: flags.baseUrl,
    model: flags.model,
    apiKey: flags.apiKey,
    stopAfterTool: flags.stopAfterTool,
    timeoutMs: flags.timeoutMs,
  });
}
