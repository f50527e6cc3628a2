import fc from 'fast-check';
import { expect } from 'vitest';
import {
  createFold,
  createParser,
  type ParseOptions,
  type ParseResult,
  type ParserEvent,
  parse,
} from './all.js';

/** Splits `text` at the given cut points (any numbers; taken modulo the length). */
export function splitAt(text: string, cuts: readonly number[]): string[] {
  const points = [
    ...new Set(cuts.map((c) => (text.length === 0 ? 0 : c % (text.length + 1)))),
  ].sort((a, b) => a - b);
  const chunks: string[] = [];
  let last = 0;
  for (const p of points) {
    chunks.push(text.slice(last, p));
    last = p;
  }
  chunks.push(text.slice(last));
  return chunks;
}

/** Cut points for `splitAt`: from none to many, so chunks run from one character to all. */
export const cutsArbitrary = fc.array(fc.nat(), { maxLength: 64 });

export function feedChunks(
  chunks: readonly string[],
  options: ParseOptions = {},
): { result: ParseResult; events: ParserEvent[] } {
  const fold = createFold();
  const events: ParserEvent[] = [];
  const parser = createParser({
    ...options,
    onEvent: (event) => {
      events.push(event);
      fold.add(event);
    },
  });
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return { result: fold.result(), events };
}

/** Each call told to start is told once more, as its end or as an error, and in that order. */
export function expectCallsSettle(events: readonly ParserEvent[]): void {
  const open = new Set<string>();
  for (const e of events) {
    if (e.type === 'tool-start') open.add(e.id);
    if (e.type === 'tool-name' || e.type === 'argument-delta') expect(open.has(e.id)).toBe(true);
    if (e.type === 'tool-end') expect(open.delete(e.call.id)).toBe(true);
    if (e.type === 'error' && e.callId !== undefined) expect(open.delete(e.callId)).toBe(true);
  }
  expect([...open]).toEqual([]);
}

/** The parse of `text`, checked to be the same fed one character at a time. */
export function readCharByChar(text: string, options: ParseOptions) {
  const whole = parse(text, options);
  const fold = createFold();
  const parser = createParser({ ...options, onEvent: fold.add });
  for (const c of text) parser.feed(c);
  parser.end();
  expect(fold.result()).toEqual(whole);
  return whole;
}
