import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DIALECTS, type ParseOptions, type ParserEvent, parse } from './support/all.js';
import { feedChunks } from './support/chunk.js';
import {
  DIALECT_TOKENS,
  delimiterSoupArbitrary,
  dialectSoupArbitrary,
  documentArbitrary,
} from './support/documents.js';
import { parserFixtures } from './support/fixtures.js';

/**
 * The input with every call, thinking block and answer marker cut out: what the text events
 * must add up to. Failed blocks are not cut: their raw text is given back as text. A marker is
 * the input's text at its offset.
 */
function expectedText(input: string, events: readonly ParserEvent[]): string {
  const spans: Array<[number, number]> = [];
  let thinkingStart = -1;
  for (const event of events) {
    if (event.type === 'tool-end') spans.push([event.call.start, event.call.end]);
    if (event.type === 'thinking-start') thinkingStart = event.offset;
    if (event.type === 'thinking-end') spans.push([thinkingStart, event.offset]);
    if (event.type === 'marker') {
      expect(input.slice(event.offset, event.offset + event.text.length)).toBe(event.text);
      spans.push([event.offset, event.offset + event.text.length]);
    }
  }
  spans.sort((a, b) => a[0] - b[0]);
  let out = '';
  let last = 0;
  for (const [start, end] of spans) {
    expect(start).toBeGreaterThanOrEqual(last);
    out += input.slice(last, start);
    last = end;
  }
  return out + input.slice(last);
}

function checkAccounting(input: string, options: ParseOptions = {}): void {
  const { result, events } = feedChunks([input], options);
  expect(result.text).toBe(expectedText(input, events));
  for (const call of result.calls) expect(call.raw).toBe(input.slice(call.start, call.end));
  for (const error of result.errors) {
    expect(error.offset).toBeGreaterThanOrEqual(0);
    expect(error.offset).toBeLessThanOrEqual(input.length);
    expect(error.message.length).toBeGreaterThan(0);
  }
}

describe('bad input: never throws, and every character ends up in text, a call, thinking or a marker', () => {
  it('holds for every fixture', () => {
    for (const fixture of parserFixtures()) checkAccounting(fixture.text);
  });

  it('holds for arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (text) => checkAccounting(text)),
      {
        numRuns: 3000,
      },
    );
  });

  it('holds for strings made of the protocol delimiters', () => {
    fc.assert(
      fc.property(delimiterSoupArbitrary, (text) => checkAccounting(text)),
      { numRuns: 3000 },
    );
  });

  it('holds for generated documents', () => {
    fc.assert(
      fc.property(documentArbitrary, (text) => checkAccounting(text)),
      { numRuns: 1000 },
    );
  });

  it('holds for every dialect read at once (auto), with their delimiters mixed', () => {
    const options: ParseOptions = { dialect: 'auto', toolNames: ['read_file'] };
    fc.assert(
      fc.property(dialectSoupArbitrary, (text) => checkAccounting(text, options)),
      { numRuns: 3000 },
    );
  });

  for (const dialect of DIALECTS.filter((d) => d !== 'tagcall'))
    it(`holds for the ${dialect} dialect read alone, every dialect's delimiters mixed`, () => {
      const options: ParseOptions = { dialect, toolNames: ['read_file'] };
      fc.assert(
        fc.property(dialectSoupArbitrary, (text) => checkAccounting(text, options)),
        { numRuns: 600 },
      );
    });

  // The families' answer markers, whole and cut, among the other families' delimiters: each
  // marker is counted (expectedText cuts it at its offset) and the rest is text.
  const markerSoup = fc
    .array(
      fc.constantFrom(
        ...DIALECT_TOKENS,
        '<|START_RESPONSE|>',
        '<|END_RESPONSE|>',
        '<|START_RESP',
        '<|open|>response<|sep|>',
        '<|close|>response<|sep|>',
        '<|close|>message<|sep|>',
        '<|close|>mess',
        '<|open|>tools<|sep|><|open|>call tool="read_file" index="1"<|sep|>',
        '<|close|>call<|sep|><|close|>tools<|sep|>',
        '<|start|>assistant<|channel|>final<|message|>',
        '<|channel|>final<|message|>',
        '<|channel|>analysis<|message|>',
        '<|end|>',
        '<|return|>',
        '>>>all\n',
        'all\n',
        '>>>read_file\n{"path": "a"}',
      ),
      { maxLength: 40 },
    )
    .map((pieces) => pieces.join(''));
  for (const dialect of [
    'command-r7b',
    'kimi-k3',
    'granite',
    'gpt-oss',
    'functionary',
    'auto',
  ] as const)
    it(`holds with answer markers in the ${dialect} dialect, and counts them`, () => {
      const options: ParseOptions = { dialect, toolNames: ['read_file'] };
      let markers = 0;
      fc.assert(
        fc.property(markerSoup, (text) => {
          checkAccounting(text, options);
          markers += parse(text, options).markers?.length ?? 0;
        }),
        { numRuns: 600 },
      );
      expect(markers).toBeGreaterThan(0);
    });

  it('never throws with tiny limits either', () => {
    const options = { maxHold: 3, maxCallBytes: 10, maxDepth: 1 };
    fc.assert(
      fc.property(delimiterSoupArbitrary, (text) => {
        expect(() => parse(text, options)).not.toThrow();
      }),
      { numRuns: 2000 },
    );
  });
});
