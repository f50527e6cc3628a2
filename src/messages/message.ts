import { randomUUID } from 'node:crypto';
import type { JsonValue, ToolArguments } from '../protocol/index.js';
import type { Role } from './roles.js';

export type ToolCallStatus = 'pending' | 'running' | 'completed' | 'failed';

export interface TextPart {
  kind: 'text';
  text: string;
}

export interface ThinkingPart {
  kind: 'thinking';
  text: string;
  /** Anthropic's signature of a thinking block, kept so the block can be sent back. */
  signature?: string;
}

export interface ToolCallPart {
  kind: 'tool-call';
  id: string;
  serverName: string;
  toolName: string;
  arguments: ToolArguments;
  status: ToolCallStatus;
  /** ISO 8601 times of this call's own run (a denied call: when it was asked and refused). */
  startedAt?: string;
  endedAt?: string;
  /** This call's run time in milliseconds, measured with a monotonic clock. */
  durationMs?: number;
}

export interface ToolResultPart {
  kind: 'tool-result';
  callId: string;
  toolName: string;
  output: string;
  isError: boolean;
}

export interface ImagePart {
  kind: 'image';
  /** Either a URL (http, https or data:) … */
  url?: string;
  /** … or the bytes, with their media type. */
  data?: Uint8Array;
  mediaType?: string;
}

/** Parts of other kinds: the kind starts with `x-`, the payload is JSON. */
export interface CustomPart {
  kind: `x-${string}`;
  data: JsonValue;
}

export type Part = TextPart | ThinkingPart | ToolCallPart | ToolResultPart | ImagePart | CustomPart;

export type FinishReason = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

export interface Message {
  id: string;
  role: Role;
  parts: Part[];
  /** ISO 8601. */
  createdAt: string;
  /** Which agent or person wrote it, for conversations with several. */
  sender?: string;
  metadata: { [key: string]: JsonValue };
  /** Assistants only: why the model stopped. */
  finishReason?: FinishReason;
}

export interface MessageOptions {
  id?: string;
  createdAt?: string;
  sender?: string;
  metadata?: { [key: string]: JsonValue };
}

/** A call as `assistant()` takes it: the rest of a ToolCallPart gets defaults. */
export interface CallInput {
  id?: string;
  serverName?: string;
  toolName: string;
  arguments?: ToolArguments;
  status?: ToolCallStatus;
}

export function createMessage(role: Role, parts: Part[], options: MessageOptions = {}): Message {
  const message: Message = {
    id: options.id ?? randomUUID(),
    role,
    parts,
    createdAt: options.createdAt ?? new Date().toISOString(),
    metadata: options.metadata ?? {},
  };
  if (options.sender !== undefined) message.sender = options.sender;
  return message;
}

const textParts = (text: string): Part[] => (text === '' ? [] : [{ kind: 'text', text }]);

export function system(text: string, options?: MessageOptions): Message {
  return createMessage('system', textParts(text), options);
}

export function user(content: string | Part[], options?: MessageOptions): Message {
  return createMessage('user', typeof content === 'string' ? textParts(content) : content, options);
}

export function toolCallPart(call: CallInput): ToolCallPart {
  return {
    kind: 'tool-call',
    id: call.id ?? `call_${randomUUID()}`,
    serverName: call.serverName ?? 'local',
    toolName: call.toolName,
    arguments: call.arguments ?? {},
    status: call.status ?? 'pending',
  };
}

/** An assistant turn: its text, then its calls. */
export function assistant(text: string, ...calls: CallInput[]): Message {
  return createMessage('assistant', [...textParts(text), ...calls.map(toolCallPart)]);
}

export function toolResult(
  callId: string,
  toolName: string,
  output: string,
  options?: MessageOptions,
): Message {
  return createMessage(
    'tool',
    [{ kind: 'tool-result', callId, toolName, output, isError: false }],
    options,
  );
}

export function toolError(
  callId: string,
  toolName: string,
  message: string,
  options?: MessageOptions,
): Message {
  return createMessage(
    'tool',
    [{ kind: 'tool-result', callId, toolName, output: message, isError: true }],
    options,
  );
}

/** A tool message carrying results, e.g. what `toolbox.dispatch` returned. */
export function toolMessage(results: ToolResultPart[], options?: MessageOptions): Message {
  return createMessage('tool', results, options);
}

/** All text parts, joined. */
export function textOf(message: Message): string {
  return message.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
}

export function callsOf(message: Message): ToolCallPart[] {
  return message.parts.filter((p): p is ToolCallPart => p.kind === 'tool-call');
}

export function thinkingOf(message: Message): string[] {
  return message.parts.flatMap((p) => (p.kind === 'thinking' ? [p.text] : []));
}

export function resultsOf(message: Message): ToolResultPart[] {
  return message.parts.filter((p): p is ToolResultPart => p.kind === 'tool-result');
}
