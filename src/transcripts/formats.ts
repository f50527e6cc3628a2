import {
  type AnthropicMessage,
  type AnthropicRequest,
  type AnthropicResponse,
  fromAnthropic,
  fromAnthropicResponse,
  fromOpenAI,
  fromOpenAIResponse,
  type Message,
  type OpenAIMessage,
  type OpenAIResponse,
} from '../messages/index.js';
import { ERROR_PREFIX } from '../messages/openai.js';
import { isJsonObject } from '../protocol/json-call.js';

/**
 * How a transcript's records are written. `text`: the whole input is one model reply (or a log
 * of them); `thread`: tagcall's own messages, one a line, as its thread store writes them.
 */
export type TranscriptFormat = 'text' | 'openai' | 'anthropic' | 'audit-log' | 'thread';
export const TRANSCRIPT_FORMATS: readonly TranscriptFormat[] = [
  'text',
  'openai',
  'anthropic',
  'audit-log',
  'thread',
];

const MESSAGE_ROLES = new Set(['system', 'user', 'assistant', 'tool']);

/** A message as tagcall writes it (its thread files, `--json` output): a role and its parts. */
const isThreadMessage = (v: unknown): v is Message =>
  isJsonObject(v) &&
  typeof v.role === 'string' &&
  MESSAGE_ROLES.has(v.role) &&
  Array.isArray(v.parts) &&
  v.parts.every((p) => isJsonObject(p) && typeof p.kind === 'string');

const ANTHROPIC_BLOCKS = new Set([
  'tool_use',
  'tool_result',
  'thinking',
  'redacted_thinking',
  'image',
]);

/** Anthropic's messages carry typed content blocks OpenAI's do not, and no system or tool role. */
function looksAnthropic(messages: readonly unknown[]): boolean {
  for (const m of messages) {
    if (!isJsonObject(m)) continue;
    if (m.role === 'system' || m.role === 'tool' || m.role === 'developer' || 'tool_calls' in m)
      return false;
    if (
      Array.isArray(m.content) &&
      m.content.some((b) => isJsonObject(b) && ANTHROPIC_BLOCKS.has(String(b.type)))
    )
      return true;
  }
  return false;
}

/** An entry of tagcall's audit log: about a message, or (without one) about the run itself. */
const isAuditEntry = (v: unknown): v is { message?: Message } =>
  isJsonObject(v) &&
  typeof v.timestamp === 'string' &&
  (isJsonObject(v.message)
    ? Array.isArray(v.message.parts)
    : v.message === undefined && isJsonObject(v.decision));

const auditMessages = (entries: readonly unknown[]): Message[] =>
  entries.flatMap((e) => (isAuditEntry(e) && e.message !== undefined ? [e.message] : []));

/** Every item a message: an object with a string `role` (a list of strings is not a transcript). */
const isMessageList = (list: readonly unknown[]) =>
  list.every((m) => isJsonObject(m) && typeof m.role === 'string');

function fromMessages(messages: unknown[], format: TranscriptFormat, system?: unknown): Message[] {
  if (format === 'anthropic')
    return fromAnthropic({
      ...(system !== undefined && { system: system as AnthropicRequest['system'] }),
      messages: messages as AnthropicMessage[],
    });
  return fromOpenAI(messages as OpenAIMessage[]);
}

/**
 * The messages in one JSON record of a transcript: a Chat Completions `messages` array,
 * request body or response (`choices`); an Anthropic Messages request or response; an entry
 * (or array of entries) of tagcall's audit log; or a single message. `format` forces how it
 * is read; otherwise it is told from the shape. Null when the record holds no messages.
 */
export function recordMessages(
  value: unknown,
  format?: Exclude<TranscriptFormat, 'text'>,
): { format: Exclude<TranscriptFormat, 'text'>; messages: Message[] } | null {
  if (Array.isArray(value)) {
    if (value.length === 0) return null;
    if (format === 'thread' || (format === undefined && value.every(isThreadMessage)))
      return value.every(isThreadMessage) ? { format: 'thread', messages: value } : null;
    if (format === 'audit-log' || (format === undefined && value.every(isAuditEntry)))
      return { format: 'audit-log', messages: auditMessages(value) };
    if (!isMessageList(value)) return null;
    const f = format ?? (looksAnthropic(value) ? 'anthropic' : 'openai');
    return { format: f, messages: fromMessages(value, f) };
  }
  if (!isJsonObject(value)) return null;
  if (format === 'thread' || (format === undefined && isThreadMessage(value)))
    return isThreadMessage(value) ? { format: 'thread', messages: [value] } : null;
  // The export shape `{"entries": […]}`.
  if (
    Array.isArray(value.entries) &&
    (format === 'audit-log' || (format === undefined && value.entries.every(isAuditEntry)))
  )
    return { format: 'audit-log', messages: auditMessages(value.entries) };
  if (format === 'audit-log' || (format === undefined && isAuditEntry(value)))
    return isAuditEntry(value) ? { format: 'audit-log', messages: auditMessages([value]) } : null;
  if (Array.isArray(value.messages) && isMessageList(value.messages)) {
    const f =
      format ??
      ((typeof value.system === 'string' || Array.isArray(value.system)) &&
      !value.messages.some((m) => isJsonObject(m) && m.role === 'system')
        ? 'anthropic'
        : looksAnthropic(value.messages)
          ? 'anthropic'
          : 'openai');
    return {
      format: f,
      messages: fromMessages(value.messages, f, f === 'anthropic' ? value.system : undefined),
    };
  }
  if (Array.isArray(value.choices)) {
    const choices = value.choices.filter((c) => isJsonObject(c) && isJsonObject(c.message));
    return {
      format: 'openai',
      messages: fromOpenAIResponse({ choices } as OpenAIResponse),
    };
  }
  if (typeof value.role === 'string') {
    const f =
      format ?? (looksAnthropic([value]) || value.type === 'message' ? 'anthropic' : 'openai');
    // A Messages API response: its stop_reason becomes the reply's finishReason.
    if (f === 'anthropic' && value.role === 'assistant' && Array.isArray(value.content))
      return {
        format: f,
        messages: [fromAnthropicResponse(value as unknown as AnthropicResponse)],
      };
    return { format: f, messages: fromMessages([value], f) };
  }
  return null;
}

/** A message of a plain-text record, as much of it as scanning reads. */
export interface PlainMessage {
  role: string;
  /** Its text; a tool message's output, `Error: ` taken off, as `fromOpenAI` reads it. */
  text: string;
}

/**
 * The messages of a Chat Completions request body in which every message is plain text (a
 * string `content`, no tool calls, no reasoning): what `recordMessages` reads from it, without
 * building Message objects (ids, timestamps, parts), for the lines of a big log most are.
 * Null for every other record, which `recordMessages` reads.
 */
export function plainOpenAIMessages(
  value: unknown,
  format?: Exclude<TranscriptFormat, 'text'>,
): PlainMessage[] | null {
  if (format !== undefined && format !== 'openai') return null;
  // What recordMessages would read as an audit log or an Anthropic request is left to it.
  if (!isJsonObject(value) || !Array.isArray(value.messages) || value.entries !== undefined)
    return null;
  if (format === undefined && (value.system !== undefined || typeof value.timestamp === 'string'))
    return null;
  const plain: PlainMessage[] = [];
  for (const m of value.messages) {
    if (!isJsonObject(m) || typeof m.role !== 'string' || typeof m.content !== 'string')
      return null;
    if (m.role === 'assistant' && (m.tool_calls !== undefined || m.reasoning_content)) return null;
    const text =
      m.role === 'tool' && m.content.startsWith(ERROR_PREFIX)
        ? m.content.slice(ERROR_PREFIX.length)
        : m.content;
    plain.push({ role: m.role, text });
  }
  return plain;
}
