// #42: a partial opening held at a chunk's end is kept as a place in the openings' tree, and a
// line start where a special token stands asks only the readers whose opening stands there.
// Counted, not timed: the searches a held beginning costs, the literal compares a flood costs.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LiteralPrefixes } from '../src/protocol/literal-prefixes.js';
import { OpeningSearch } from '../src/protocol/openings.js';
import { createParser, type Dialect, type ParserEvent } from './support/all.js';
import { floodChunks } from './support/flood-shapes.js';

const OPENING = '<|tool_calls_section_begin|>';

/** The events of `chunks` read in `dialect`, pre-filled thinking ruled out. */
function read(dialect: Dialect | 'auto', chunks: readonly string[]): ParserEvent[] {
  const events: ParserEvent[] = [];
  const parser = createParser({
    dialect,
    toolNames: ['read_file'],
    prefilledThinking: 'never',
    onEvent: (event) => events.push(event),
  });
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return events;
}

/** How many times the held tail is looked at again: a search over the openings, or a walk. */
function searches(): () => number {
  const spies = [
    vi.spyOn(OpeningSearch.prototype, 'find'),
    vi.spyOn(LiteralPrefixes.prototype, 'partialSuffixStart'),
    vi.spyOn(LiteralPrefixes.prototype, 'standsAt'),
  ];
  return () => spies.reduce((sum, spy) => sum + spy.mock.calls.length, 0);
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('a held beginning of an opening', () => {
  // Chunks of one character: every one of them after the `<` only goes on with the opening.
  const byCharacter = (text: string) => [...text];

  for (const [where, before] of [
    ['mid-line', 'some text '],
    ['at a line start', 'some text\n'],
  ] as const) {
    it(`${where}: a chunk that only goes on with it is not searched again`, () => {
      const partial = OPENING.slice(0, -1);
      const whole = read('auto', [before, partial, '>']);
      const counted = searches();
      const events = read('auto', [before, ...byCharacter(partial), '>']);
      // The text before, the `<`, the chunk that completes it (and end): not one a character.
      expect(counted()).toBeLessThanOrEqual(8);
      expect(events).toEqual(whole);
    });
  }

  it('a chunk that leaves it is read as before: the held text is text', () => {
    const chunks = ['some text ', ...byCharacter('<|tool_calls_sec'), 'x and more'];
    const events = read('auto', chunks);
    expect(events.every((event) => event.type === 'text')).toBe(true);
    expect(events.map((event) => (event.type === 'text' ? event.text : '')).join('')).toBe(
      chunks.join(''),
    );
  });
});

describe('a special token at line starts', () => {
  /** Calls of `String.prototype.startsWith` (a literal compared at a place) over `work`. */
  function compares(work: () => void): number {
    const spy = vi.spyOn(String.prototype, 'startsWith');
    work();
    const count = spy.mock.calls.length;
    spy.mockRestore();
    return count;
  }

  it("costs auto about the literal compares of the token's own dialect, not one an opening", () => {
    // `<|message_sep|>` opens gigachat's block at a line start when its role follows; `auto`
    // knows 34 openings that begin with `<`, and compared each wherever the token stood.
    const chunks = floodChunks('<|message_sep|>\n', 16_384);
    const own = compares(() => read('gigachat', chunks));
    const auto = compares(() => read('auto', chunks));
    expect(auto / own, `auto ${auto}, gigachat ${own}`).toBeLessThan(1.5);
  });
});
