import { createMemory, type Memory } from '../memory/index.js';
import {
  callsOf,
  createReplyBuilder,
  system as systemMessage,
  type ToolCallPart,
  type ToolResultPart,
  textOf,
  toolMessage,
  toTextProtocol,
  user,
} from '../messages/index.js';
import { createParser, type ParseOptions, type ParserEvent } from '../protocol/index.js';
import { renderToolPrompt, type Toolbox } from '../tools/index.js';
import type { ChatMessage, ModelClient } from './model-client.js';

export type AgentEvent =
  | ParserEvent
  | { type: 'turn-start'; turn: number }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'restart'; reason: string }
  | { type: 'malformed'; errors: Array<{ code: string; message: string }>; streak: number }
  | { type: 'tool-running'; call: ToolCallPart }
  | { type: 'tool-result'; call: ToolCallPart; result: ToolResultPart; durationMs: number };

export type CallDecision = { approve: true } | { approve: false; reason: string };

export interface AgentHooks {
  /** Sees (and may change) a copy of the messages about to be sent; the history is untouched. */
  beforeRequest?: (messages: ChatMessage[]) => ChatMessage[] | Promise<ChatMessage[]>;
  /** Approves or denies a call; a denial goes back to the model as a tool error. */
  beforeCall?: (call: ToolCallPart) => CallDecision | Promise<CallDecision>;
  afterCall?: (call: ToolCallPart, result: ToolResultPart) => void | Promise<void>;
}

export interface RunAgentOptions {
  model: ModelClient;
  toolbox: Toolbox;
  task: string;
  /** The caller's system text; the tool prompt follows it. */
  system?: string;
  /** Default: a fresh memory of 32,000 estimated tokens. */
  memory?: Memory;
  /** Default 25. */
  maxTurns?: number;
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
  hooks?: AgentHooks;
  /** Parser options for replies (default `prefilledThinking: 'never'`: reasoning comes separately). */
  parse?: ParseOptions;
}

export type AgentStatus = 'completed' | 'no-call' | 'max-turns' | 'failed' | 'cancelled';

export interface AgentResult {
  status: AgentStatus;
  /** `task_completion`'s result, or the last reply's text when the model stopped calling tools. */
  answer: string | null;
  turns: number;
  error?: string;
  memory: Memory;
}

export const AGENT_DEFAULTS = { maxTurns: 25, budget: 32_000, malformedLimit: 3 };

/**
 * The loop: send the window, stream the reply through the parser (events as they arrive),
 * dispatch its calls, append the results as `Tool: name` messages, and go on until
 * `task_completion`, a reply without calls, `maxTurns`, an error or cancellation.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const emit = options.onEvent ?? (() => {});
  const memory = options.memory ?? createMemory({ budget: AGENT_DEFAULTS.budget });
  const maxTurns = options.maxTurns ?? AGENT_DEFAULTS.maxTurns;
  const hooks = options.hooks ?? {};
  const parseOptions: ParseOptions = {
    prefilledThinking: 'never',
    schemas: await options.toolbox.schemas(),
    ...options.parse,
  };
  if (memory.all().length === 0) {
    const prompt = await renderToolPrompt(options.toolbox);
    memory.add(systemMessage([options.system, prompt].filter(Boolean).join('\n\n')));
  }
  memory.add(user(options.task));
  let malformed = 0;
  const finish = (
    status: AgentStatus,
    answer: string | null,
    turns: number,
    error?: string,
  ): AgentResult => ({
    status,
    answer,
    turns,
    memory,
    ...(error !== undefined && { error }),
  });

  for (let turn = 1; turn <= maxTurns; turn++) {
    if (options.signal?.aborted) return finish('cancelled', null, turn - 1);
    emit({ type: 'turn-start', turn });
    let reasoning = '';
    // The reply is built from the very events that stream out: one parse per reply.
    let builder = createReplyBuilder();
    const startParse = () =>
      createParser({
        ...parseOptions,
        generateId: builder.generateId,
        onEvent: (event) => {
          builder.add(event);
          emit(event);
        },
      });
    let parser = startParse();
    let request = toTextProtocol(await memory.messages()) as ChatMessage[];
    if (hooks.beforeRequest) request = await hooks.beforeRequest(structuredClone(request));
    try {
      for await (const delta of options.model.stream({
        messages: request,
        signal: options.signal,
      })) {
        if (delta.type === 'text') {
          parser.feed(delta.text);
        } else if (delta.type === 'reasoning') {
          reasoning += delta.text;
          emit({ type: 'reasoning-delta', text: delta.text });
        } else if (delta.type === 'restart') {
          reasoning = '';
          builder = createReplyBuilder();
          parser = startParse();
          emit({ type: 'restart', reason: delta.reason });
        }
      }
      parser.end();
    } catch (error) {
      if (options.signal?.aborted) return finish('cancelled', null, turn);
      return finish('failed', null, turn, (error as Error).message ?? String(error));
    }

    const reply = builder.finish();
    if (reasoning !== '') reply.parts.unshift({ kind: 'thinking', text: reasoning });
    memory.add(reply);
    const errors = (reply.metadata.parseErrors ?? []) as Array<{ code: string; message: string }>;
    const calls = callsOf(reply);

    if (errors.length > 0) {
      malformed++;
      emit({ type: 'malformed', errors, streak: malformed });
      if (malformed >= AGENT_DEFAULTS.malformedLimit) {
        return finish(
          'failed',
          null,
          turn,
          `${malformed} malformed replies in a row; the last: ${errors[0].message}`,
        );
      }
      // The model reads the parser's words and writes the call again.
      memory.add(
        user(errors.map((e) => `Tool: tool call\nError: ${e.message} (${e.code})`).join('\n\n')),
      );
      if (calls.length === 0) continue;
    } else {
      malformed = 0;
    }
    if (calls.length === 0) return finish('no-call', textOf(reply).trim(), turn);

    const results = await runCalls(calls, options, hooks, emit);
    memory.add(toolMessage(results));
    const completion = calls.findIndex((c) => c.toolName === 'task_completion');
    if (completion !== -1 && !results[completion].isError)
      return finish('completed', results[completion].output, turn);
    if (options.signal?.aborted) return finish('cancelled', null, turn);
  }
  return finish('max-turns', null, maxTurns);
}

async function runCalls(
  calls: ToolCallPart[],
  options: RunAgentOptions,
  hooks: AgentHooks,
  emit: (event: AgentEvent) => void,
): Promise<ToolResultPart[]> {
  const decisions = await Promise.all(
    calls.map((c) => hooks.beforeCall?.(c) ?? ({ approve: true } as const)),
  );
  const approved = calls.filter((_, i) => decisions[i].approve);
  for (const call of approved) {
    call.status = 'running';
    call.startedAt = new Date().toISOString();
    emit({ type: 'tool-running', call });
  }
  const started = Date.now();
  const ran = await options.toolbox.dispatchAll(approved, { signal: options.signal });
  const results: ToolResultPart[] = [];
  let next = 0;
  for (const [i, call] of calls.entries()) {
    const decision = decisions[i];
    const result: ToolResultPart = decision.approve
      ? ran[next++]
      : {
          kind: 'tool-result',
          callId: call.id,
          toolName: call.toolName,
          output: `denied: ${decision.reason}`,
          isError: true,
        };
    call.status = result.isError ? 'failed' : 'completed';
    call.endedAt = new Date().toISOString();
    emit({ type: 'tool-result', call, result, durationMs: Date.now() - started });
    await hooks.afterCall?.(call, result);
    results.push(result);
  }
  return results;
}
