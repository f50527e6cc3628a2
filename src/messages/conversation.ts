import type { Message } from './message.js';
import { textOf } from './message.js';
import type { Role } from './roles.js';

/**
 * An append-only chain of messages. Values are immutable: `append` returns a new
 * conversation and leaves this one as it was, so a branch (`fork`) never disturbs another.
 */
export interface Conversation {
  readonly length: number;
  messages(): readonly Message[];
  append(...messages: Message[]): Conversation;
  concat(other: Conversation | readonly Message[]): Conversation;
  /** A branch: the first `upTo` messages (all by default), to go on from there another way. */
  fork(upTo?: number): Conversation;
  last(): Message | undefined;
  /** The message at `index`; negative counts from the end. */
  at(index: number): Message | undefined;
  byRole(role: Role): Message[];
  bySender(sender: string): Message[];
  /** The text of every system message, joined by blank lines. */
  systemPrompt(): string;
  filter(keep: (message: Message, index: number) => boolean): Conversation;
  /** Visits messages in order; returning `false` stops. */
  each(visit: (message: Message, index: number) => boolean | undefined): void;
}

export function createConversation(initial: readonly Message[] = []): Conversation {
  const list: readonly Message[] = Object.freeze([...initial]);
  return {
    length: list.length,
    messages: () => list,
    append: (...messages) => createConversation([...list, ...messages]),
    concat: (other) =>
      createConversation([
        ...list,
        ...(Array.isArray(other) ? other : (other as Conversation).messages()),
      ]),
    fork: (upTo = list.length) => createConversation(list.slice(0, upTo)),
    last: () => list[list.length - 1],
    at: (index) => list.at(index),
    byRole: (role) => list.filter((m) => m.role === role),
    bySender: (sender) => list.filter((m) => m.sender === sender),
    systemPrompt: () =>
      list
        .filter((m) => m.role === 'system')
        .map(textOf)
        .join('\n\n'),
    filter: (keep) => createConversation(list.filter(keep)),
    each(visit) {
      for (let i = 0; i < list.length; i++) if (visit(list[i], i) === false) return;
    },
  };
}
