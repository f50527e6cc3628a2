import { createMemory, type Memory } from '../memory/index.js';
import {
  type AuditLog,
  callsOf,
  createReplyBuilder,
  type Decision,
  type FinishReason,
  finishReasonFromOpenAI,
  system as systemMessage,
  type ToolCallPart,
  type ToolResultPart,
  textOf,
  toolMessage,
  toTextProtocol,
  user,
} from '../messages/index.js';
import {
  createParser,
  type Dialect,
  type ParseOptions,
  type ParserEvent,
} from '../protocol/index.js';
import { type DispatchOutcome, renderToolPrompt, type Toolbox } from '../tools/index.js';
import type { ChatMessage, ModelClient } from './model-client.js';
import { checkPromptBudget } from './prompt-budget.js';
import { withTaskCompletion } from './task-completion.js';
export type AgentEvent =
  | ParserEvent
  | { type: 'turn-start'; turn: number }
  | { type: 'reasoning-delta'; text: string }
  | { type: 'restart'; reason: string }
  | { type: 'malformed'; errors: Array<{ code: string; message: string }>; streak: number }
  | { type: 'tool-running'; call: ToolCallPart }
  /** `durationMs` is this call's own run time (a denied call's: how long `beforeCall` took). */
  | { type: 'tool-result'; call: ToolCallPart; result: ToolResultPart; durationMs: number }
  /** The last event of a run: how and why it ended. */
  | {
      type: 'run-end';
      status: AgentStatus;
      turns: number;
      answer: string | null;
      error?: string;
      reason: string;
    };

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
  /**
   * The tools the model may call. Without a `task_completion` among them, the agent adds its
   * own (its `result` is the run's answer), so a run of only your tools can finish.
   */
  toolbox: Toolbox;
  task: string;
  /** The caller's system text; the tool prompt follows it. */
  system?: string;
  /** Default: a fresh memory of 32,000 estimated tokens. */
  memory?: Memory;
  /** Default 25. */
  maxTurns?: number;
  /**
   * A reply (text and reasoning) longer than this ends the run as `failed`, its request
   * aborted: a model stuck in a loop cannot fill the memory. Default 2,000,000 characters.
   */
  maxReplyChars?: number;
  /**
   * At most this many calls of one reply run (default 64); the rest are answered "not run"
   * with the limit, so one reply of 10,000 calls cannot dispatch them all.
   */
  maxCallsPerReply?: number;
  /**
   * End each reply where the parser read the end of its first call, in any dialect: the rest
   * is not read and its request is closed. For models that write on past their call (often
   * imagining its result). Default false.
   */
  stopAfterCall?: boolean;
  onEvent?: (event: AgentEvent) => void;
  signal?: AbortSignal;
  hooks?: AgentHooks;
  /** Parser options for replies (default `prefilledThinking: 'never'`: reasoning comes separately). */
  parse?: ParseOptions;
  /**
   * The call format the model's family was trained on: the prompt teaches it, earlier calls
   * are written in it, and replies are read in it (`auto` reads every dialect and teaches
   * `<tool>`). Default `tagcall`, the `<tool>` protocol.
   */
  dialect?: Dialect | 'auto';
  /**
   * Records every turn: the task, each reply with what the model was asked (the ids and tokens
   * of the window sent), each call with its decision, outcome and timing, and how the run ended.
   */
  audit?: AuditLog;
}

export type AgentStatus = 'completed' | 'no-call' | 'max-turns' | 'failed' | 'cancelled';

export interface AgentResult {
  status: AgentStatus;
  /** `task_completion`'s result, or the last reply's text when the model stopped calling tools. */
  answer: string | null;
  turns: number;
  error?: string;
  /** Why the run ended, in words (also the `run-end` event's and the audit log's). */
  reason: string;
  memory: Memory;
}

export const AGENT_DEFAULTS = {
  maxTurns: 25,
  budget: 32_000,
  malformedLimit: 3,
  maxReplyChars: 2_000_000,
  maxCallsPerReply: 64,
};

/**
 * The loop: send the window, stream the reply through the parser (events as they arrive),
 * dispatch its calls, append the results as `Tool: name` messages, and go on until
 * `task_completion`, a reply without calls, `maxTurns`, an error or cancellation. Throws
 * `PromptOverBudgetError`, before anything is sent or stored, when the system prompt (tools and
 * system text) and the task together exceed the memory's budget.
 */
export async function runAgent(options: RunAgentOptions): Promise<AgentResult> {
  const emit = options.onEvent ?? (() => {});
  const audit = options.audit;
  const memory = options.memory ?? createMemory({ budget: AGENT_DEFAULTS.budget });
  const maxTurns = options.maxTurns ?? AGENT_DEFAULTS.maxTurns;
  const maxReplyChars = options.maxReplyChars ?? AGENT_DEFAULTS.maxReplyChars;
  const hooks = options.hooks ?? {};
  const toolbox = await withTaskCompletion(options.toolbox);
  const dialect = options.dialect ?? 'tagcall';
  const written: Dialect = dialect === 'auto' ? 'tagcall' : dialect;
  const parseOptions: ParseOptions = {
    prefilledThinking: 'never',
    schemas: await toolbox.schemas(),
    dialect,
    ...options.parse,
  };
  const prompt =
    memory.all().length === 0
      ? systemMessage(
          [options.system, await renderToolPrompt(toolbox, { dialect })]
            .filter(Boolean)
            .join('\n\n'),
        )
      : undefined;
  const task = user(options.task);
  // A window that keeps the system prompt drops the task when both do not fit: refused here.
  const pinned = memory.all().filter((m) => m.role === 'system');
  checkPromptBudget(memory, prompt === undefined ? pinned : [...pinned, prompt], task);
  if (prompt !== undefined) await memory.add(prompt);
  await memory.add(task);
  audit?.record(task, { type: 'task' });
  let malformed = 0;
  const finish = (
    status: AgentStatus,
    answer: string | null,
    turns: number,
    error?: string,
  ): AgentResult => {
    const reason = END_REASONS[status](turns, error);
    const details = { turns, answer, ...(error !== undefined && { error }) };
    audit?.record(undefined, { type: 'run_ended', reason, details: { status, ...details } });
    emit({ type: 'run-end', status, reason, ...details });
    return { status, answer, turns, reason, memory, ...(error !== undefined && { error }) };
  };

  for (let turn = 1; turn <= maxTurns; turn++) {
    if (options.signal?.aborted) return finish('cancelled', null, turn - 1);
    emit({ type: 'turn-start', turn });
    let reasoning = '';
    let replyChars = 0;
    let modelFinish: string | undefined;
    // The reply is built from the very events that stream out: one parse per reply.
    let builder = createReplyBuilder();
    /** With stopAfterCall: the first call has ended, and the reply is cut there. */
    let cut = false;
    const startParse = () =>
      createParser({
        ...parseOptions,
        generateId: builder.generateId,
        onEvent: (event) => {
          // What the same delta held after the call is past the cut: not part of the reply.
          if (cut) return;
          builder.add(event);
          emit(event);
          if (event.type === 'tool-end' && options.stopAfterCall === true) cut = true;
        },
      });
    let parser = startParse();
    const window = await memory.messages();
    const asked = { messageIds: window.map((m) => m.id), tokens: memory.stats().tokens };
    let request = toTextProtocol(window, { dialect: written }) as ChatMessage[];
    if (hooks.beforeRequest) request = await hooks.beforeRequest(structuredClone(request));
    try {
      for await (const delta of options.model.stream({
        messages: request,
        signal: options.signal,
      })) {
        if (delta.type === 'text' || delta.type === 'reasoning') {
          replyChars += delta.text.length;
          if (replyChars > maxReplyChars) {
            // Leaving the loop closes the stream, which aborts the request.
            return finish(
              'failed',
              null,
              turn,
              `the model's reply passed maxReplyChars (${maxReplyChars} characters) and was stopped`,
            );
          }
        }
        if (delta.type === 'text') {
          parser.feed(delta.text);
          // Leaving the loop closes the stream, which ends the request.
          if (cut) break;
        } else if (delta.type === 'reasoning') {
          reasoning += delta.text;
          emit({ type: 'reasoning-delta', text: delta.text });
        } else if (delta.type === 'finish') {
          modelFinish = delta.reason;
        } else if (delta.type === 'restart') {
          reasoning = '';
          replyChars = 0;
          modelFinish = undefined;
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
    const answeredAt = new Date().toISOString();
    if (reasoning !== '') reply.parts.unshift({ kind: 'thinking', text: reasoning });
    const errors = (reply.metadata.parseErrors ?? []) as Array<{ code: string; message: string }>;
    const calls = callsOf(reply);
    const finishReason = replyFinishReason(modelFinish, calls.length > 0);
    if (finishReason !== undefined) reply.finishReason = finishReason;
    if (errors.length > 0) {
      malformed++;
      emit({ type: 'malformed', errors, streak: malformed });
    } else {
      malformed = 0;
    }
    const settled =
      calls.length > 0 ? await runCalls(calls, { ...options, toolbox }, hooks, emit) : [];
    // The reply is stored once its calls have settled, so the store holds their final status.
    await memory.add(reply);
    audit?.record(
      reply,
      {
        type: errors.length > 0 ? 'malformed_reply' : 'model_reply',
        details: {
          turn,
          asked,
          ...(finishReason !== undefined && { finishReason }),
          calls: calls.length,
          ...(errors.length > 0 && { errors }),
        },
      },
      answeredAt,
    );
    if (settled.length > 0) {
      await memory.add(toolMessage(settled.map((s) => s.result)));
      for (const s of settled) audit?.record(toolMessage([s.result]), s.decision, s.call.endedAt);
    }
    if (errors.length > 0) {
      // The model reads the parser's words and writes the call again. A tool message, not a
      // user one (user text that reads as a result is escaped), after the reply's results, so
      // it stays in the reply's unit in the window.
      const feedback = toolMessage(
        errors.map((e) => ({
          kind: 'tool-result' as const,
          callId: '',
          toolName: 'tool call',
          output: `${e.message} (${e.code})`,
          isError: true,
        })),
      );
      await memory.add(feedback);
      audit?.record(feedback, { type: 'malformed_feedback', details: { streak: malformed } });
      if (malformed >= AGENT_DEFAULTS.malformedLimit) {
        return finish(
          'failed',
          null,
          turn,
          `${malformed} malformed replies in a row; the last: ${errors[0].message}`,
        );
      }
      if (calls.length === 0) continue;
    }
    if (calls.length === 0) return finish('no-call', textOf(reply).trim(), turn);

    const completion = calls.findIndex((c) => c.toolName === 'task_completion');
    if (completion !== -1 && !settled[completion].result.isError)
      return finish('completed', settled[completion].result.output, turn);
    if (options.signal?.aborted) return finish('cancelled', null, turn);
  }
  return finish('max-turns', null, maxTurns);
}

const END_REASONS: Record<AgentStatus, (turns: number, error?: string) => string> = {
  completed: () => 'the model called task_completion',
  'no-call': () => 'the model replied without calling a tool',
  'max-turns': (turns) => `stopped after turn ${turns} (maxTurns); the task is not complete`,
  failed: (_turns, error) => `failed: ${error}`,
  cancelled: () => 'cancelled',
};

/** A reply that made calls stopped to have them run, whatever stop the model reported. */
function replyFinishReason(
  modelReason: string | undefined,
  hasCalls: boolean,
): FinishReason | undefined {
  const reason = modelReason === undefined ? undefined : finishReasonFromOpenAI(modelReason);
  return hasCalls && (reason === undefined || reason === 'stop') ? 'tool-calls' : reason;
}

const DECISIONS: Record<DispatchOutcome, Decision['type']> = {
  ok: 'tool_call_completed',
  'tool-error': 'tool_call_failed',
  'unknown-tool': 'tool_call_unknown',
  'unknown-server': 'tool_call_unknown',
  'invalid-arguments': 'tool_call_invalid',
  'server-unreachable': 'tool_call_failed',
  'server-failed': 'tool_call_failed',
  'timed-out': 'tool_call_timed_out',
  cancelled: 'tool_call_cancelled',
  threw: 'tool_call_failed',
};

interface SettledCall {
  call: ToolCallPart;
  result: ToolResultPart;
  decision: Decision;
}

async function runCalls(
  calls: ToolCallPart[],
  options: RunAgentOptions,
  hooks: AgentHooks,
  emit: (event: AgentEvent) => void,
): Promise<SettledCall[]> {
  const asked = calls.map(() => ({ at: new Date().toISOString(), clock: performance.now() }));
  const cap = options.maxCallsPerReply ?? AGENT_DEFAULTS.maxCallsPerReply;
  const overCap: CallDecision = {
    approve: false,
    reason: `the reply made ${calls.length} calls and at most ${cap} run per reply (maxCallsPerReply); make the rest in your next reply`,
  };
  const decisions = await Promise.all(
    calls.map(async (c, i) => {
      const decision =
        i >= cap ? overCap : ((await hooks.beforeCall?.(c)) ?? ({ approve: true } as const));
      return { decision, at: new Date().toISOString(), ms: performance.now() - asked[i].clock };
    }),
  );
  const approved = calls.filter((_, i) => decisions[i].decision.approve);
  for (const call of approved) {
    call.status = 'running';
    emit({ type: 'tool-running', call });
  }
  const reports = await options.toolbox.runAll(approved, { signal: options.signal });
  const settled: SettledCall[] = [];
  let next = 0;
  for (const [i, call] of calls.entries()) {
    const { decision, at, ms } = decisions[i];
    const report = decision.approve ? reports[next++] : undefined;
    const durationMs = report?.durationMs ?? Math.round(ms * 1000) / 1000;
    const result: ToolResultPart = report?.result ?? {
      kind: 'tool-result',
      callId: call.id,
      toolName: call.toolName,
      output: `${decision === overCap ? 'not run' : 'denied'}: ${decision.approve ? '' : decision.reason}`,
      isError: true,
    };
    call.status = result.isError ? 'failed' : 'completed';
    call.startedAt = report?.startedAt ?? asked[i].at;
    call.endedAt = report?.endedAt ?? at;
    call.durationMs = durationMs;
    const details = {
      serverName: call.serverName,
      toolName: call.toolName,
      outcome: report?.outcome ?? 'denied',
      startedAt: call.startedAt,
      endedAt: call.endedAt,
    };
    const audited: Decision = decision.approve
      ? { type: DECISIONS[report?.outcome ?? 'ok'], callId: call.id, durationMs, details }
      : { type: 'tool_call_denied', callId: call.id, reason: decision.reason, durationMs, details };
    emit({ type: 'tool-result', call, result, durationMs });
    await hooks.afterCall?.(call, result);
    settled.push({ call, result, decision: audited });
  }
  return settled;
}
