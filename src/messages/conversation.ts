import {
  assistant,
  type CallInput,
  type Message,
  type MessageOptions,
  system,
  textOf,
  toolResult,
  user,
} from './message.js';
import { formatMessages } from './pretty.js';
import type { Role } from './roles.js';

/**
 * An append-only chain of messages. Values are immutable: every method that adds or changes
 * returns a new conversation and leaves this one as it was, so a branch (`fork`) never
 * disturbs another. The builder methods (`system`, `user`, `assistant`, `tool`) chain:
 * `conversation().system('…').user('…')`.
 */
export interface Conversation {
  readonly length: number;
  messages(): readonly Message[];
  append(...messages: Message[]): Conversation;
  concat(other: Conversation | readonly Message[]): Conversation;
  system(text: string, options?: MessageOptions): Conversation;
  user(text: string, options?: MessageOptions): Conversation;
  /** An assistant turn: its text, then its calls. */
  assistant(text: string, ...calls: CallInput[]): Conversation;
  /** A tool result answering the call `callId`. */
  tool(callId: string, toolName: string, output: string, options?: MessageOptions): Conversation;
  /** This conversation with the message at `index` (negative counts from the end) replaced. */
  replace(index: number, message: Message): Conversation;
  /** A branch: the first `upTo` messages (all by default), to go on from there another way. */
  fork(upTo?: number): Conversation;
  last(): Message | undefined;
  /** The text of the last message; `''` when there is none. */
  lastContent(): string;
  /** The message at `index`; negative counts from the end. */
  at(index: number): Message | undefined;
  byRole(role: Role): Message[];
  bySender(sender: string): Message[];
  userMessages(): Conversation;
  assistantMessages(): Conversation;
  toolMessages(): Conversation;
  systemMessages(): Conversation;
  /** The text of the first system message (`''` when there is none). */
  systemPrompt(): string;
  /** The text of every system message, joined by blank lines. */
  allSystemText(): string;
  filter(keep: (message: Message, index: number) => boolean): Conversation;
  /** Visits messages in order; returning `false` stops. */
  each(visit: (message: Message, index: number) => boolean | undefined): void;
  /** For people: `formatMessages` (headers, blank lines, call ids). */
  pretty(): string;
  toString(): string;
}

/** A new conversation, empty or holding `initial`. */
export function conversation(initial: readonly Message[] = []): Conversation {
  const list: readonly Message[] = Object.freeze([...initial]);
  const ofRole = (role: Role) => list.filter((m) => m.role === role);
  const withRole = (role: Role) => conversation(ofRole(role));
  const append = (...messages: Message[]) => conversation([...list, ...messages]);
  return {
    length: list.length,
    messages: () => list,
    append,
    concat: (other) =>
      append(...(Array.isArray(other) ? other : (other as Conversation).messages())),
    system: (text, options) => append(system(text, options)),
    user: (text, options) => append(user(text, options)),
    assistant: (text, ...calls) => append(assistant(text, ...calls)),
    tool: (callId, toolName, output, options) =>
      append(toolResult(callId, toolName, output, options)),
    replace(index, message) {
      const at = index < 0 ? list.length + index : index;
      if (at < 0 || at >= list.length)
        throw new RangeError(`no message at index ${index} (the conversation has ${list.length})`);
      return conversation(list.with(at, message));
    },
    fork: (upTo = list.length) => conversation(list.slice(0, upTo)),
    last: () => list[list.length - 1],
    lastContent: () => (list.length === 0 ? '' : textOf(list[list.length - 1])),
    at: (index) => list.at(index),
    byRole: ofRole,
    bySender: (sender) => list.filter((m) => m.sender === sender),
    userMessages: () => withRole('user'),
    assistantMessages: () => withRole('assistant'),
    toolMessages: () => withRole('tool'),
    systemMessages: () => withRole('system'),
    systemPrompt() {
      const first = list.find((m) => m.role === 'system');
      return first === undefined ? '' : textOf(first);
    },
    allSystemText: () => ofRole('system').map(textOf).join('\n\n'),
    filter: (keep) => conversation(list.filter(keep)),
    each(visit) {
      for (let i = 0; i < list.length; i++) if (visit(list[i], i) === false) return;
    },
    pretty: () => formatMessages(list),
    toString: () => formatMessages(list),
  };
}

/** The same as `conversation(initial)`. */
export const createConversation = conversation;
