// The held start of an 'auto' reply (src/protocol/prefilled-thinking.ts) keeps its text as
// ranges of the kept input: what goes out at the decision is the text and the held events in
// the order they were told, each run of text between two events as one text event.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ParserEvent } from '../src/protocol/events.js';
import { PARSER_DEFAULTS } from '../src/protocol/parser-options.js';
import { PrefilledStart } from '../src/protocol/prefilled-thinking.js';

/** A held start: its input in chunks, and what was told of it (text ranges, other events). */
const heldStart = fc
  .array(fc.string({ minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 12 })
  .chain((chunks) => {
    const length = chunks.join('').length;
    const told = fc.array(
      fc.oneof(
        fc
          .tuple(fc.nat(length), fc.nat(length))
          .map(([a, b]) => ({ from: Math.min(a, b), to: Math.max(a, b) })),
        fc.constant({ event: true as const }),
      ),
      { maxLength: 12 },
    );
    return fc.tuple(fc.constant(chunks), told);
  });

function held(chunks: string[], told: ({ from: number; to: number } | { event: true })[]) {
  const seen: ParserEvent[] = [];
  const start = new PrefilledStart((event) => seen.push(event), PARSER_DEFAULTS.maxHold);
  start.begin();
  for (const chunk of chunks) start.keep(chunk);
  told.forEach((step, i) => {
    if ('event' in step) start.emit({ type: 'thinking-end', offset: i });
    else if (step.to > step.from) start.textAt(step.from, step.to);
  });
  return { start, seen };
}

describe('the held start of an auto reply', () => {
  it('tells each run of text between held events as one event, in order', () => {
    fc.assert(
      fc.property(heldStart, ([chunks, told]) => {
        const input = chunks.join('');
        const expected: ParserEvent[] = [];
        let text = '';
        told.forEach((step, i) => {
          if ('event' in step) {
            if (text !== '') expected.push({ type: 'text', text });
            text = '';
            expected.push({ type: 'thinking-end', offset: i });
          } else text += input.slice(step.from, step.to);
        });
        if (text !== '') expected.push({ type: 'text', text });
        const { start, seen } = held(chunks, told);
        expect(seen).toEqual([]);
        start.decideNot();
        expect(seen).toEqual(expected);
      }),
    );
  });

  it('tells nothing more once decided, and thinking is the kept input up to its close', () => {
    const { start, seen } = held(['Let me ', 'see.</th', 'ink>'], [{ from: 0, to: 11 }]);
    start.decide(11, '</think>'.length);
    start.decideNot();
    expect(seen).toEqual([
      { type: 'thinking-start', offset: 0, format: 'prefilled' },
      { type: 'thinking-delta', text: 'Let me see.' },
      { type: 'thinking-end', offset: 19 },
    ]);
  });
});
