import { freeText, type TextLimits } from './free-text.js';
import { chars, type Expr, lit, opt, rep, seq, star } from './model.js';
import type { Rules } from './rules.js';

/** What the reply grammar is made of: one call, and what may stand around calls. */
export interface ReplyParts {
  call: Expr;
  /** What free text may not hold (the openings of calls and of what would hide them). */
  text: TextLimits;
  /** A call opens only at a line start (`<tool>`), or anywhere (a special token). */
  callAtLineStart: boolean;
  /** Calls only: what may come before the first call (thinking lines, blanks). */
  lead: Expr;
  /** Calls only: between two calls. */
  between: Expr;
  /** Calls only: after the last call. */
  trailing: Expr;
}

export interface ReplyOptions {
  allowText: boolean;
  maxCalls: number;
  /** `reply`: the whole reply; `trigger`: from a lazy grammar's trigger (the call) on. */
  scope: 'reply' | 'trigger';
}

/**
 * The root of a reply: free text with calls (each on a line of its own when calls open only
 * at a line start), or calls alone; from the first call on for a lazy grammar's trigger.
 */
export function replyRoot(rules: Rules, parts: ReplyParts, options: ReplyOptions): Expr {
  const { call, callAtLineStart } = parts;
  const n = options.maxCalls;
  // llama.cpp hands a lazy grammar the whole match of a line-start trigger: the newline and
  // blanks before the opening too.
  const triggered = callAtLineStart ? lineStartLead() : lit('');
  if (!options.allowText) {
    const calls = seq(call, rep(seq(parts.between, call), 0, Math.max(0, n - 1)), parts.trailing);
    return options.scope === 'trigger' ? seq(triggered, calls) : seq(parts.lead, calls);
  }
  const text = freeText(rules, parts.text, 'free-text');
  const opening = callAtLineStart ? lit('\n') : lit('');
  const more = (count: number) => rep(seq(opening, call, text.midLine), 0, count);
  const startsWithCall = seq(call, text.midLine, more(n - 1));
  if (options.scope === 'trigger') return seq(triggered, startsWithCall);
  return callAtLineStart
    ? { kind: 'alt', items: [startsWithCall, seq(text.lineStart, more(n))] }
    : seq(text.lineStart, more(n));
}

/** What a line-start trigger's match holds before the opening: a newline, then blanks. */
export const lineStartLead = (): Expr => seq(opt(lit('\n')), star(chars(' \t')));
