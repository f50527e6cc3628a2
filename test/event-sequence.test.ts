import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createParser, type Dialect, type ParseOptions, type ParserEvent } from './support/all.js';
import { cutsArbitrary, splitAt } from './support/chunk.js';
import {
  ALL_DIALECTS,
  dialectInputs,
  markerSoup,
  optionsOf,
  replyIn,
} from './support/dialect-inputs.js';
import { foldEvents, splitSurrogate } from './support/event-sequence.js';

/** The events of `chunks` fed one by one, and the most held back after any feed. */
function feed(chunks: readonly string[], options: ParseOptions) {
  const events: ParserEvent[] = [];
  const parser = createParser({ ...options, onEvent: (e) => events.push(e) });
  let held = 0;
  for (const chunk of chunks) {
    parser.feed(chunk);
    held = Math.max(held, parser.held);
  }
  parser.end();
  return { events, held };
}

const folded = (chunks: readonly string[], options: ParseOptions) =>
  foldEvents(feed(chunks, options).events);

describe('the event sequence is the same on every chunking (docs/protocol.md)', () => {
  for (const input of dialectInputs()) {
    it(`${input.name}: every cut, and one character a chunk`, () => {
      const whole = folded([input.text], input.options);
      expect(folded(Array.from(input.text), input.options)).toEqual(whole);
      fc.assert(
        fc.property(cutsArbitrary, (cuts) => {
          expect(folded(splitAt(input.text, cuts), input.options)).toEqual(whole);
        }),
        { numRuns: 100 },
      );
    });
  }

  // Shapes a seeded fuzz found, kept so they stay fixed: #30 item 3's (functionary lost
  // characters in 64-character chunks; mistral and auto told different events by chunking),
  // and a Python list whose newline before the next item came in an earlier chunk (a
  // missing-comma repair was told only when cut there).
  const FOUND: Array<[Dialect | 'auto', string]> = [
    // A word opening (functools) needs a non-word character before it, which may stand in
    // an earlier chunk, already emitted: `of` and `myfunctools[` are no call at any cut.
    [
      'auto',
      'one of functools[{"name": "f", "arguments": {"a": "x"}}] myfunctools[{"name": "g", "arguments": {}}]\nfunctools[{"name": "h", "arguments": {}}]',
    ],
    ['functionary', '>>>read_file\n</arguments><|tool_call_start|>[read_file(path="a"),}'],
    ['mistral', '[TOOL_CALLS]]\r\n</read_file>'],
    ['auto', '[TOOL_CALLS]]\r\n</read_file>'],
    ['llama4', '</function><|tool_call_start|>[read_file(path="a")\n<function_calls></tool>'],
    ['olmo3', '<function_calls>\nf(a=1)\n\ng(b="x")\n</function_calls>'],
    // A `<` in a Gemma string that begins the block's close, cut before the close is whole.
    [
      'gemma4',
      '<|tool_call>call:f{a:<|"|>x&<</t>|"|>}<tool_call|>\n<|tool_call>call:f{}<tool_call|>',
    ],
    // DeepSeek V3's ```json fence cut after its backticks (vLLM's deepseek_v3 suite, fed 1 to 5
    // characters a chunk): the fence was taken for the body, and the call failed as invalid JSON.
    [
      'deepseek',
      '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_current_time\n```json\n{}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>',
    ],
  ];
  for (const [dialect, text] of FOUND)
    it(`${dialect}: ${JSON.stringify(text)} at every cut, and 1 and 64 characters a chunk`, () => {
      const options = optionsOf(dialect);
      const whole = folded([text], options);
      expect(folded(Array.from(text), options)).toEqual(whole);
      for (let cut = 1; cut < text.length; cut++)
        expect(folded([text.slice(0, cut), text.slice(cut)], options), `cut at ${cut}`).toEqual(
          whole,
        );
      const padded = `${'x'.repeat(40)}${text}`;
      const chunks = padded.match(/[\s\S]{1,64}/g) ?? [];
      expect(folded(chunks, options)).toEqual(folded([padded], options));
    });

  for (const dialect of ALL_DIALECTS) {
    const written: Dialect = dialect === 'auto' ? 'qwen3-coder' : dialect;
    it(`${dialect}: replies written by its own renderer, hard values, cut and damaged`, () => {
      fc.assert(
        fc.property(replyIn(written), cutsArbitrary, (text, cuts) => {
          const options = optionsOf(dialect);
          expect(folded(splitAt(text, cuts), options)).toEqual(folded([text], options));
        }),
        { numRuns: 150 },
      );
    });

    it(`${dialect}: every family's markers, in any order`, () => {
      fc.assert(
        fc.property(markerSoup, cutsArbitrary, (text, cuts) => {
          const options = optionsOf(dialect);
          expect(folded(splitAt(text, cuts), options)).toEqual(folded([text], options));
        }),
        { numRuns: 300 },
      );
    });
  }
});

describe('what the parser emits is well-formed and what it holds is bounded', () => {
  it('no event splits a surrogate pair, whatever the dialect and the chunking', () => {
    const written = fc
      .constantFrom(...ALL_DIALECTS)
      .chain((d) => replyIn(d === 'auto' ? 'hermes' : d))
      .map((text) => text.replace(/e/g, '🎉'));
    fc.assert(
      fc.property(
        fc.constantFrom(...ALL_DIALECTS),
        written,
        cutsArbitrary,
        (reader, text, cuts) => {
          const { events } = feed(splitAt(text, cuts), optionsOf(reader));
          expect(splitSurrogate(events)).toBeNull();
        },
      ),
      { numRuns: 300 },
    );
  });

  // docs/parser.md, "Hold-back bound": what is read but not decided stays under this.
  const maxHold = 64;
  const bound = maxHold + 2048;
  it(`holds back at most maxHold + 2 KiB characters after any feed (${bound} here)`, () => {
    const long = (s: string) => s.repeat(3000);
    fc.assert(
      fc.property(
        fc.constantFrom(...ALL_DIALECTS),
        fc.oneof(
          markerSoup.map(long),
          fc.constantFrom(...ALL_DIALECTS).chain((d) => replyIn(d === 'auto' ? 'glm' : d)),
          fc.constantFrom(
            long('['),
            long(' '),
            `<tool>\n<tool_name>t</tool_name>\n<arguments>\n<a>${long('</a>   ')}`,
            `<tool_call>\n<function=f>\n<parameter=a>\n${long('</parameter>\n')}`,
            long('<function='),
            long('<|'),
            long('```'),
          ),
        ),
        fc.integer({ min: 1, max: 64 }),
        (dialect, text, size) => {
          const chunks: string[] = [];
          for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
          const { held } = feed(chunks, { ...optionsOf(dialect), maxHold });
          expect(held).toBeLessThanOrEqual(bound);
        },
      ),
      { numRuns: 200 },
    );
  });
});
