import type { ToolArguments } from '../protocol/index.js';
import { toNullPrototype } from '../protocol/json-call.js';
import {
  callsOf,
  createMessage,
  type FinishReason,
  type Message,
  type Part,
  resultsOf,
  type ToolCallPart,
  textOf,
  thinkingOf,
} from './message.js';

/** The Chat Completions message shapes this module reads and writes (no SDK needed). */
export interface OpenAITextPart {
  type: 'text';
  text: string;
}
export interface OpenAIImagePart {
  type: 'image_url';
  image_url: { url: string; detail?: string };
}
export interface OpenAIToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}
export type OpenAIMessage =
  | { role: 'system' | 'developer'; content: string | OpenAITextPart[]; name?: string }
  | { role: 'user'; content: string | Array<OpenAITextPart | OpenAIImagePart>; name?: string }
  | {
      role: 'assistant';
      content: string | null | OpenAITextPart[];
      tool_calls?: OpenAIToolCall[];
      reasoning_content?: string;
      name?: string;
    }
  | { role: 'tool'; content: string | OpenAITextPart[]; tool_call_id: string };

/**
 * Function names cannot say which server a tool lives on: tools of a server other than
 * `local` are named `server__tool`, and read back by splitting at the first `__`.
 */
export function functionName(serverName: string, toolName: string): string {
  return serverName === 'local' ? toolName : `${serverName}__${toolName}`;
}

export function splitFunctionName(name: string): { serverName: string; toolName: string } {
  const at = name.indexOf('__');
  return at > 0
    ? { serverName: name.slice(0, at), toolName: name.slice(at + 2) }
    : { serverName: 'local', toolName: name };
}

/** What begins a tool message's content that is an error (`isError`). */
export const ERROR_PREFIX = 'Error: ';

function imageUrl(part: Extract<Part, { kind: 'image' }>): string {
  if (part.url !== undefined) return part.url;
  return `data:${part.mediaType ?? 'application/octet-stream'};base64,${Buffer.from(part.data ?? new Uint8Array()).toString('base64')}`;
}

/** Messages as Chat Completions wants them. Tool errors become `Error: …` content. */
export function toOpenAI(messages: readonly Message[]): OpenAIMessage[] {
  const out: OpenAIMessage[] = [];
  for (const m of messages) {
    const name = m.sender === undefined ? {} : { name: m.sender };
    if (m.role === 'system') out.push({ role: 'system', content: textOf(m), ...name });
    else if (m.role === 'user') {
      const images = m.parts.filter((p) => p.kind === 'image');
      out.push({
        role: 'user',
        content:
          images.length === 0
            ? textOf(m)
            : m.parts.flatMap(
                (p): Array<OpenAITextPart | OpenAIImagePart> =>
                  p.kind === 'text'
                    ? [{ type: 'text', text: p.text }]
                    : p.kind === 'image'
                      ? [{ type: 'image_url', image_url: { url: imageUrl(p) } }]
                      : [],
              ),
        ...name,
      });
    } else if (m.role === 'assistant') {
      const calls = callsOf(m);
      const thinking = thinkingOf(m);
      const text = textOf(m);
      // Nothing to send: an empty assistant message is noise (and some servers reject it).
      if (text === '' && calls.length === 0 && thinking.length === 0) continue;
      out.push({
        role: 'assistant',
        content: text === '' && calls.length > 0 ? null : text,
        ...(calls.length > 0 && {
          tool_calls: calls.map((c) => ({
            id: c.id,
            type: 'function' as const,
            function: {
              name: functionName(c.serverName, c.toolName),
              arguments: JSON.stringify(c.arguments),
            },
          })),
        }),
        ...(thinking.length > 0 && { reasoning_content: thinking.join('\n\n') }),
        ...name,
      });
    } else {
      for (const r of resultsOf(m)) {
        out.push({
          role: 'tool',
          tool_call_id: r.callId,
          content: r.isError ? `${ERROR_PREFIX}${r.output}` : r.output,
        });
      }
    }
  }
  return out;
}

const OPENAI_FINISH: Record<string, FinishReason> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
};

/** Chat Completions' `finish_reason` as a message's `finishReason` (unknown ones: `other`). */
export function finishReasonFromOpenAI(reason: string): FinishReason {
  return OPENAI_FINISH[reason] ?? 'other';
}

/** A Chat Completions response, as much of it as `fromOpenAIResponse` reads. */
export interface OpenAIResponse {
  choices: Array<{ message: OpenAIMessage; finish_reason?: string | null }>;
}

/** The replies of a Chat Completions response, each with its `finishReason`. */
export function fromOpenAIResponse(response: OpenAIResponse): Message[] {
  const choices = response.choices.filter((c) => c?.message !== undefined);
  const messages = fromOpenAI(choices.map((c) => c.message));
  for (const [i, m] of messages.entries()) {
    const reason = choices[i].finish_reason;
    if (m.role === 'assistant' && typeof reason === 'string')
      m.finishReason = finishReasonFromOpenAI(reason);
  }
  return messages;
}

const contentText = (
  content: string | null | ReadonlyArray<{ type: string; text?: string }>,
): string =>
  typeof content === 'string'
    ? content
    : (content ?? []).map((p) => (p.type === 'text' ? (p.text ?? '') : '')).join('');

function parseArguments(json: string): ToolArguments {
  try {
    const value: unknown = JSON.parse(json);
    if (value !== null && typeof value === 'object' && !Array.isArray(value))
      return toNullPrototype(value) as ToolArguments;
  } catch {
    // Models sometimes send broken JSON: the call keeps it under `_raw` for the tool error.
  }
  return toNullPrototype({ _raw: json }) as ToolArguments;
}

/**
 * Messages from Chat Completions: a `messages` array, or a request body holding one. A tool
 * message's tool name comes from the call it answers; `Error: …` content marks an error.
 */
export function fromOpenAI(
  input: readonly OpenAIMessage[] | { messages: readonly OpenAIMessage[] },
): Message[] {
  const list = Array.isArray(input)
    ? input
    : (input as { messages: readonly OpenAIMessage[] }).messages;
  const callNames = new Map<string, string>();
  return list.map((m): Message => {
    const options = 'name' in m && m.name !== undefined ? { sender: m.name } : {};
    switch (m.role) {
      case 'system':
      case 'developer':
        return createMessage('system', [{ kind: 'text', text: contentText(m.content) }], options);
      case 'user': {
        const parts: Part[] =
          typeof m.content === 'string'
            ? [{ kind: 'text', text: m.content }]
            : (m.content as Array<OpenAITextPart | OpenAIImagePart>).map(
                (p): Part =>
                  p.type === 'text'
                    ? { kind: 'text', text: p.text }
                    : imageFromUrl(p.image_url.url),
              );
        return createMessage('user', parts, options);
      }
      case 'assistant': {
        const parts: Part[] = [];
        if (m.reasoning_content) parts.push({ kind: 'thinking', text: m.reasoning_content });
        const text = contentText(m.content);
        if (text !== '') parts.push({ kind: 'text', text });
        for (const call of m.tool_calls ?? []) {
          const { serverName, toolName } = splitFunctionName(call.function.name);
          callNames.set(call.id, toolName);
          const part: ToolCallPart = {
            kind: 'tool-call',
            id: call.id,
            serverName,
            toolName,
            arguments: parseArguments(call.function.arguments),
            status: 'pending',
          };
          parts.push(part);
        }
        return createMessage('assistant', parts, options);
      }
      case 'tool': {
        const text = contentText(m.content);
        const isError = text.startsWith(ERROR_PREFIX);
        return createMessage('tool', [
          {
            kind: 'tool-result',
            callId: m.tool_call_id,
            toolName: callNames.get(m.tool_call_id) ?? '',
            output: isError ? text.slice(ERROR_PREFIX.length) : text,
            isError,
          },
        ]);
      }
      default: {
        // An unknown role is kept as it came, for validateMessages to report.
        const unknown = m as { role: Message['role']; content?: string | null };
        return createMessage(unknown.role, [
          { kind: 'text', text: contentText(unknown.content ?? '') },
        ]);
      }
    }
  });
}

function imageFromUrl(url: string): Part {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return data === null
    ? { kind: 'image', url }
    : { kind: 'image', mediaType: data[1], data: new Uint8Array(Buffer.from(data[2], 'base64')) };
}
