import type { ToolArguments } from '../protocol/index.js';
import { toNullPrototype } from '../protocol/json-call.js';
import { createMessage, type FinishReason, type Message, type Part, textOf } from './message.js';
import { functionName, splitFunctionName } from './openai.js';

/** The Anthropic Messages shapes this module reads and writes (no SDK needed). */
export type AnthropicImageSource =
  | { type: 'base64'; media_type: string; data: string }
  | { type: 'url'; url: string };
export type AnthropicBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | {
      type: 'tool_result';
      tool_use_id: string;
      content?: string | Array<{ type: 'text'; text: string }>;
      is_error?: boolean;
    }
  | { type: 'image'; source: AnthropicImageSource };
export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: string | AnthropicBlock[];
}
export interface AnthropicRequest {
  system?: string | Array<{ type: 'text'; text: string }>;
  messages: AnthropicMessage[];
}

function toBlock(part: Part): AnthropicBlock[] {
  switch (part.kind) {
    case 'text':
      return part.text === '' ? [] : [{ type: 'text', text: part.text }];
    case 'thinking':
      return [
        {
          type: 'thinking',
          thinking: part.text,
          ...(part.signature !== undefined && { signature: part.signature }),
        },
      ];
    case 'tool-call':
      return [
        {
          type: 'tool_use',
          id: part.id,
          name: functionName(part.serverName, part.toolName),
          input: part.arguments,
        },
      ];
    case 'tool-result':
      return [
        {
          type: 'tool_result',
          tool_use_id: part.callId,
          content: part.output,
          ...(part.isError && { is_error: true }),
        },
      ];
    case 'image':
      return [
        {
          type: 'image',
          source:
            part.url !== undefined
              ? { type: 'url', url: part.url }
              : {
                  type: 'base64',
                  media_type: part.mediaType ?? 'application/octet-stream',
                  data: Buffer.from(part.data ?? new Uint8Array()).toString('base64'),
                },
        },
      ];
    default:
      return [];
  }
}

/**
 * A Messages request body: system messages go to `system` (joined by blank lines), tool
 * results ride in the user turn, and consecutive turns of one role merge into one, as the
 * API expects. Message ids, times and senders have no place there and are not carried.
 */
export function toAnthropic(messages: readonly Message[]): AnthropicRequest {
  const system = messages.filter((m) => m.role === 'system').map(textOf);
  const out: AnthropicMessage[] = [];
  for (const m of messages) {
    if (m.role === 'system') continue;
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const blocks = m.parts.flatMap(toBlock);
    const last = out[out.length - 1];
    if (last?.role === role) (last.content as AnthropicBlock[]).push(...blocks);
    else out.push({ role, content: blocks });
  }
  return { ...(system.length > 0 && { system: system.join('\n\n') }), messages: out };
}

const blocksOf = (content: string | AnthropicBlock[]): AnthropicBlock[] =>
  typeof content === 'string' ? [{ type: 'text', text: content }] : content;

function fromImage(source: AnthropicImageSource): Part {
  return source.type === 'url'
    ? { kind: 'image', url: source.url }
    : {
        kind: 'image',
        mediaType: source.media_type,
        data: new Uint8Array(Buffer.from(source.data, 'base64')),
      };
}

/** Messages from a Messages request body: a user turn's tool results become tool messages. */
export function fromAnthropic(request: AnthropicRequest): Message[] {
  const out: Message[] = [];
  const system =
    typeof request.system === 'string'
      ? request.system
      : (request.system ?? []).map((b) => b.text).join('\n\n');
  if (system !== '') out.push(createMessage('system', [{ kind: 'text', text: system }]));
  const callNames = new Map<string, string>();
  for (const m of request.messages) {
    const parts: Part[] = [];
    for (const block of blocksOf(m.content)) {
      switch (block.type) {
        case 'text':
          parts.push({ kind: 'text', text: block.text });
          break;
        case 'thinking':
          parts.push({
            kind: 'thinking',
            text: block.thinking,
            ...(block.signature !== undefined && { signature: block.signature }),
          });
          break;
        case 'tool_use': {
          const { serverName, toolName } = splitFunctionName(block.name);
          callNames.set(block.id, toolName);
          const args = toNullPrototype(block.input ?? {}) as ToolArguments;
          parts.push({
            kind: 'tool-call',
            id: block.id,
            serverName,
            toolName,
            arguments: args,
            status: 'pending',
          });
          break;
        }
        case 'tool_result': {
          const output =
            typeof block.content === 'string'
              ? block.content
              : (block.content ?? []).map((c) => c.text).join('');
          const result: Part = {
            kind: 'tool-result',
            callId: block.tool_use_id,
            toolName: callNames.get(block.tool_use_id) ?? '',
            output,
            isError: block.is_error === true,
          };
          out.push(createMessage('tool', [result]));
          break;
        }
        case 'image':
          parts.push(fromImage(block.source));
          break;
      }
    }
    if (parts.length > 0 || m.role === 'assistant') out.push(createMessage(m.role, parts));
  }
  return out;
}

const ANTHROPIC_STOP: Record<string, FinishReason> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool-calls',
  refusal: 'content-filter',
};

/** A Messages API response, as much of it as `fromAnthropicResponse` reads. */
export interface AnthropicResponse {
  role: 'assistant';
  content: AnthropicBlock[];
  stop_reason?: string | null;
}

/** The reply of a Messages response, with its `finishReason` from `stop_reason`. */
export function fromAnthropicResponse(response: AnthropicResponse): Message {
  const [message] = fromAnthropic({ messages: [{ role: 'assistant', content: response.content }] });
  if (typeof response.stop_reason === 'string')
    message.finishReason = ANTHROPIC_STOP[response.stop_reason] ?? 'other';
  return message;
}
