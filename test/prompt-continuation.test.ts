import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createParser, type ParseOptions, type ParserEvent, parse } from './support/all.js';
import { cutsArbitrary, splitAt } from './support/chunk.js';
import { foldEvents } from './support/event-sequence.js';

// #26 item 2: a reply begins where its prompt ended. gpt-oss's template ends the prompt with
// `<|start|>assistant`; functionary v3.2's with `>>>`.

function folded(chunks: readonly string[], options: ParseOptions) {
  const events: ParserEvent[] = [];
  const parser = createParser({ ...options, onEvent: (e) => events.push(e) });
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return foldEvents(events);
}

const CASES: Array<[string, ParseOptions, string, string, Record<string, unknown>]> = [
  [
    "gpt-oss: the header's tail",
    { dialect: 'gpt-oss' },
    ' to=functions.search<|channel|>commentary json<|message|>{"q": "<a> & ü"}<|call|>',
    'search',
    { q: '<a> & ü' },
  ],
  [
    "gpt-oss in 'auto': the header's tail",
    { dialect: 'auto' },
    ' to=functions.search<|channel|>commentary <|constrain|>json<|message|>{"q": ""}<|call|>',
    'search',
    { q: '' },
  ],
  [
    'functionary v3.2: the first call after the prompt’s >>>',
    { dialect: 'functionary' },
    'get_weather\n{"city": "Paris"}\n>>>get_time\n{"zone": "CET"}',
    'get_weather',
    { city: 'Paris' },
  ],
];

describe('a reply that begins inside its prompt is read as its continuation', () => {
  for (const [name, options, reply, tool, args] of CASES)
    it(`${name}: read at the start of the input, on every chunking`, () => {
      const result = parse(reply, options);
      expect(result.errors).toEqual([]);
      expect(result.calls[0]).toMatchObject({ toolName: tool, start: 0 });
      expect({ ...result.calls[0].arguments }).toEqual(args);
      const whole = folded([reply], options);
      fc.assert(
        fc.property(cutsArbitrary, (cuts) => {
          expect(folded(splitAt(reply, cuts), options)).toEqual(whole);
        }),
        { numRuns: 200 },
      );
    });

  it('functionary reads both calls of a v3.2 reply', () => {
    const result = parse(CASES[2][2], CASES[2][1]);
    expect(result.calls.map((c) => c.toolName)).toEqual(['get_weather', 'get_time']);
  });

  it('only at the very start, and only what the prompt could have begun', () => {
    // Prose that merely looks alike is text: a first line of one word, ` to` in a sentence,
    // the same header tail later in the reply.
    expect(parse('Summary\nAll is well.', { dialect: 'functionary' }).calls).toEqual([]);
    expect(parse(' to be or not to be', { dialect: 'gpt-oss' }).text).toBe(' to be or not to be');
    const later = 'Sure. to=functions.search<|channel|>commentary json<|message|>{"q": "x"}';
    expect(parse(later, { dialect: 'gpt-oss' }).calls).toEqual([]);
    expect(parse('all\n{"a": 1}', { dialect: 'functionary' }).calls).toEqual([]);
  });
});
