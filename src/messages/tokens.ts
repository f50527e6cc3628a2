import type { Message } from './message.js';

/** Counts tokens of a text. The memory's budget is in whatever unit the counter counts. */
export interface TokenCounter {
  count(text: string): number;
}

/** Characters / 4, rounded up: fast, and off by the language (see the memory's benchmark). */
export const charEstimate: TokenCounter = { count: (text) => Math.ceil(text.length / 4) };

/** What a chat template adds around every message (role markers, separators). */
export const MESSAGE_OVERHEAD = 4;

/** Tokens of one message: its text, thinking, calls (name and JSON arguments) and results. */
export function estimateMessageTokens(
  message: Message,
  counter: TokenCounter = charEstimate,
): number {
  let total = MESSAGE_OVERHEAD;
  for (const part of message.parts) {
    if (part.kind === 'text' || part.kind === 'thinking') total += counter.count(part.text);
    else if (part.kind === 'tool-call')
      total += counter.count(part.toolName) + counter.count(JSON.stringify(part.arguments));
    else if (part.kind === 'tool-result')
      total += counter.count(part.toolName) + counter.count(part.output);
  }
  return total;
}

export function estimateTokens(
  messages: readonly Message[],
  counter: TokenCounter = charEstimate,
): number {
  let total = 0;
  for (const m of messages) total += estimateMessageTokens(m, counter);
  return total;
}
