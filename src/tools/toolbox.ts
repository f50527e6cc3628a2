import { type ToolResultPart, toolNameProblem } from '../messages/index.js';
import type { CallFormat, ToolArguments } from '../protocol/index.js';
import { coerceArguments, type WrittenAs, writtenAs } from './coerce.js';
import {
  defineTool,
  type JsonSchema,
  type ToolDefinition,
  type ToolOutput,
} from './define-tool.js';
import { connectMcp, type McpConnection, type McpServerConfig } from './mcp-client.js';
import { validateArguments } from './validate-arguments.js';

/** The fields of a parsed call (or a ToolCallPart) that dispatch reads. */
export interface CallLike {
  id: string;
  serverName: string;
  toolName: string;
  arguments: ToolArguments;
  /** How the call was written: decides whether its strings were text or literals (coercion). */
  format?: CallFormat;
}

export interface ToolboxOptions {
  tools?: ToolDefinition[];
  /** By name, as in the common `mcpServers` JSON. `server_name` in a call picks one. */
  mcpServers?: Record<string, McpServerConfig>;
  /** Calls of one message run at most this many at a time. Default 4. */
  concurrency?: number;
  /** Per call. Default 60 s. */
  timeoutMs?: number;
  /** Connecting to an MCP server and listing its tools. Default 30 s. */
  connectTimeoutMs?: number;
  /**
   * The most one message from an MCP server may hold, refused as it arrives (a call waiting on
   * a larger answer fails at once). Default 4 MiB.
   */
  maxMcpMessageBytes?: number;
}

export interface DispatchOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ListedTool {
  serverName: string;
  name: string;
  description: string;
  inputSchema: JsonSchema;
}

export const TOOLBOX_DEFAULTS = { concurrency: 4, timeoutMs: 60_000 };

/**
 * How a dispatched call ended: `ok` (the tool ran and succeeded), `tool-error` (it ran and
 * reported an error), or why it did not run or did not finish.
 */
export type DispatchOutcome =
  | 'ok'
  | 'tool-error'
  | 'unknown-tool'
  | 'unknown-server'
  | 'invalid-arguments'
  | 'server-unreachable'
  | 'server-failed'
  | 'timed-out'
  | 'cancelled'
  | 'threw';

/** One call's result with how it ended and its own run time (not its batch's). */
export interface DispatchReport {
  result: ToolResultPart;
  outcome: DispatchOutcome;
  /** ISO 8601. */
  startedAt: string;
  endedAt: string;
  durationMs: number;
}

class ToolError extends Error {
  constructor(
    readonly outcome: DispatchOutcome,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Local tools and MCP servers behind one `dispatch`: arguments are coerced by the tool's
 * schema and validated, and every failure (unknown server or tool, bad arguments, timeout,
 * cancellation, a server that died) comes back as a tool result with `isError`, phrased for
 * the model to correct its next call. Nothing throws at the caller.
 */
export function createToolbox(options: ToolboxOptions = {}) {
  const servers = options.mcpServers ?? {};
  const timeoutDefault = options.timeoutMs ?? TOOLBOX_DEFAULTS.timeoutMs;
  const concurrency = Math.max(1, options.concurrency ?? TOOLBOX_DEFAULTS.concurrency);
  const local = new Map<string, ToolDefinition>();
  for (const tool of options.tools ?? []) {
    const problem = toolNameProblem(tool.name);
    if (problem !== null)
      throw new Error(`tool name ${JSON.stringify(tool.name)} ${problem}: rename the tool`);
    local.set(tool.name, tool);
  }
  const connections = new Map<string, Promise<McpConnection>>();
  const warned = new Set<string>();
  const warnOnce = (text: string) => {
    if (warned.has(text)) return;
    warned.add(text);
    process.emitWarning(text, 'TagcallToolWarning');
  };

  function connection(serverName: string): Promise<McpConnection> {
    let pending = connections.get(serverName);
    if (pending === undefined) {
      pending = connectMcp(servers[serverName], {
        connectTimeoutMs: options.connectTimeoutMs,
        maxMessageBytes: options.maxMcpMessageBytes,
      });
      // A failed connection is retried on the next call, not cached.
      pending.catch(() => connections.delete(serverName));
      connections.set(serverName, pending);
    }
    return pending;
  }

  if (Object.keys(servers).length > 0 && !local.has('use_mcp_tool')) {
    local.set(
      'use_mcp_tool',
      defineTool({
        name: 'use_mcp_tool',
        description: 'Calls a tool of an MCP server by name, with its arguments as JSON.',
        inputSchema: {
          type: 'object',
          properties: {
            server_name: { type: 'string', description: 'the MCP server' },
            tool_name: { type: 'string', description: 'the tool on that server' },
            arguments: { type: 'object', description: 'the arguments, as JSON' },
          },
          required: ['server_name', 'tool_name'],
        },
        async handler(args, context) {
          const result = await runMcp(
            String(args.server_name),
            String(args.tool_name),
            (args.arguments ?? {}) as ToolArguments,
            context.signal,
            timeoutDefault,
          );
          return { text: result.text, isError: result.isError };
        },
      }),
    );
  }

  async function listTools(): Promise<ListedTool[]> {
    const out: ListedTool[] = [...local.values()].map((t) => ({ serverName: 'local', ...pick(t) }));
    for (const name of Object.keys(servers)) {
      const { tools } = await connection(name).catch((error: unknown) => {
        throw new Error(`MCP server ${JSON.stringify(name)}: ${message(error)}`);
      });
      for (const t of tools) {
        // A name the text protocol cannot carry is not offered (a model could not call it, and
        // its result line would break): said once per server and name.
        const problem = toolNameProblem(t.name);
        if (problem === null) out.push({ serverName: name, ...t });
        else
          warnOnce(
            `MCP server ${JSON.stringify(name)}: tool ${JSON.stringify(t.name)} ${problem}; it is left out`,
          );
      }
    }
    return out;
  }

  function checkArguments(
    toolName: string,
    args: ToolArguments,
    schema: JsonSchema,
    written: WrittenAs = 'text',
  ): ToolArguments {
    const coerced = coerceArguments(args, schema, written);
    const problems = validateArguments(coerced, schema);
    if (problems.length > 0) {
      throw new ToolError(
        'invalid-arguments',
        `invalid arguments for ${toolName}: ${problems.join('; ')}. Fix them and call the tool again.`,
      );
    }
    return coerced;
  }

  async function runMcp(
    serverName: string,
    toolName: string,
    args: ToolArguments,
    signal: AbortSignal,
    timeoutMs: number,
    written: WrittenAs = 'text',
  ): Promise<{ text: string; isError: boolean }> {
    if (!Object.hasOwn(servers, serverName)) {
      const known = ['local', ...Object.keys(servers)].join(', ');
      throw new ToolError(
        'unknown-server',
        `there is no server named ${JSON.stringify(serverName)}; use one of: ${known}`,
      );
    }
    let mcp: McpConnection;
    try {
      mcp = await connection(serverName);
    } catch (error) {
      throw new ToolError(
        'server-unreachable',
        `could not reach MCP server ${JSON.stringify(serverName)}: ${message(error)}`,
      );
    }
    const tool = mcp.tools.find((t) => t.name === toolName);
    if (tool === undefined) {
      throw new ToolError(
        'unknown-tool',
        `server ${JSON.stringify(serverName)} has no tool ${JSON.stringify(toolName)}; its tools are: ${mcp.tools.map((t) => t.name).join(', ')}`,
      );
    }
    const checked = checkArguments(toolName, args, tool.inputSchema, written);
    try {
      return await mcp.call(toolName, checked, signal, timeoutMs);
    } catch (error) {
      if (signal.aborted) throw error;
      // The server may have died: the next call reconnects.
      connections.delete(serverName);
      throw new ToolError(
        'server-failed',
        `MCP server ${JSON.stringify(serverName)} failed during ${toolName}: ${message(error)}`,
      );
    }
  }

  async function runLocal(call: CallLike, signal: AbortSignal): Promise<ToolOutput> {
    const tool = local.get(call.toolName);
    if (tool === undefined) {
      throw new ToolError(
        'unknown-tool',
        `there is no tool ${JSON.stringify(call.toolName)}; the tools are: ${[...local.keys()].join(', ') || '(none)'}`,
      );
    }
    const args = checkArguments(
      call.toolName,
      call.arguments,
      tool.inputSchema,
      writtenAs(call.format),
    );
    return await tool.handler(args, { signal });
  }

  async function run(
    call: CallLike,
    dispatchOptions: DispatchOptions = {},
  ): Promise<DispatchReport> {
    const timeoutMs = dispatchOptions.timeoutMs ?? timeoutDefault;
    // The call's own signal, timer and listener, all let go when it settles: a timeout signal
    // (AbortSignal.timeout, and AbortSignal.any over one) keeps its listeners, and through them
    // the call's result, until it fires, so every call would hold its output for the timeout.
    const callScope = new AbortController();
    const signal = callScope.signal;
    const timer = setTimeout(
      () => callScope.abort(new DOMException(`timed out after ${timeoutMs} ms`, 'TimeoutError')),
      timeoutMs,
    );
    // Like AbortSignal.timeout's, the timer alone does not keep the process alive.
    timer.unref();
    const caller = dispatchOptions.signal;
    const cancel = () => callScope.abort(caller?.reason);
    if (caller?.aborted === true) cancel();
    else caller?.addEventListener('abort', cancel, { once: true });
    const startedAt = new Date().toISOString();
    const started = performance.now();
    const report = (text: string, outcome: DispatchOutcome): DispatchReport => ({
      result: {
        kind: 'tool-result',
        callId: call.id,
        toolName: call.toolName,
        output: text,
        isError: outcome !== 'ok',
      },
      outcome,
      startedAt,
      endedAt: new Date().toISOString(),
      durationMs: Math.round((performance.now() - started) * 1000) / 1000,
    });
    const aborted = new Promise<never>((_, reject) => {
      const stop = () => reject(signal.reason);
      if (signal.aborted) stop();
      else signal.addEventListener('abort', stop, { once: true });
    });
    try {
      const serverName = call.serverName || 'local';
      const work =
        serverName === 'local'
          ? runLocal(call, signal)
          : runMcp(
              serverName,
              call.toolName,
              call.arguments,
              signal,
              timeoutMs,
              writtenAs(call.format),
            );
      const output = await Promise.race([work, aborted]);
      return typeof output === 'string'
        ? report(output, 'ok')
        : report(output.text, output.isError === true ? 'tool-error' : 'ok');
    } catch (error) {
      if (error instanceof ToolError) return report(error.message, error.outcome);
      if (signal.aborted) {
        return dispatchOptions.signal?.aborted !== true
          ? report(`${call.toolName} timed out after ${timeoutMs} ms`, 'timed-out')
          : report(`${call.toolName} was cancelled`, 'cancelled');
      }
      return report(`${call.toolName} failed: ${message(error)}`, 'threw');
    } finally {
      clearTimeout(timer);
      caller?.removeEventListener('abort', cancel);
    }
  }

  /** Several calls, at most `concurrency` at a time; reports in call order. */
  async function runAll(
    calls: readonly CallLike[],
    dispatchOptions: DispatchOptions = {},
  ): Promise<DispatchReport[]> {
    const reports: DispatchReport[] = new Array(calls.length);
    let next = 0;
    const worker = async () => {
      while (next < calls.length) {
        const index = next++;
        reports[index] = await run(calls[index], dispatchOptions);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, calls.length) }, worker));
    return reports;
  }

  return {
    /** Every tool, local and of each MCP server (connecting to them). */
    listTools,
    /** Argument schemas by tool name, for the parser's `schemas` option. */
    async schemas(): Promise<Record<string, JsonSchema>> {
      const out: Record<string, JsonSchema> = {};
      for (const t of await listTools())
        if (!Object.hasOwn(out, t.name)) out[t.name] = t.inputSchema;
      return out;
    },
    /** Runs one call; the result is an error result for every failure (nothing throws). */
    async dispatch(call: CallLike, dispatchOptions?: DispatchOptions): Promise<ToolResultPart> {
      return (await run(call, dispatchOptions)).result;
    },
    /** Several calls (one message's), at most `concurrency` at a time; results in call order. */
    async dispatchAll(
      calls: readonly CallLike[],
      dispatchOptions?: DispatchOptions,
    ): Promise<ToolResultPart[]> {
      return (await runAll(calls, dispatchOptions)).map((r) => r.result);
    },
    /** `dispatch` with how the call ended and its own timing. */
    run,
    /** `dispatchAll` with each call's outcome and timing. */
    runAll,
    async close(): Promise<void> {
      const open = [...connections.values()];
      connections.clear();
      await Promise.allSettled(open.map(async (c) => (await c).close()));
    },
  };
}

export type Toolbox = ReturnType<typeof createToolbox>;

function pick(tool: ToolDefinition) {
  return { name: tool.name, description: tool.description, inputSchema: tool.inputSchema };
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
