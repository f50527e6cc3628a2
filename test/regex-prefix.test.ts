import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Syntax } from '../src/protocol/body/value-events.js';
import { builtReader } from '../src/protocol/built-reader.js';
import { blockReaders } from '../src/protocol/dialects/index.js';
import { BODY_RECOVERIES } from '../src/protocol/dialects/recoveries.js';
import { TAGCALL_FORM } from '../src/protocol/dialects/tagcall.js';
import { DIALECTS } from '../src/protocol/index.js';
import {
  derivedPatterns,
  mayBecomeMatch,
  UnsupportedPatternError,
} from '../src/protocol/regex-prefix.js';

/**
 * The pattern as fast-check can write strings of it: anchored, its trailing lookahead read as
 * text (a match with what the lookahead wants after it), its leading negative lookahead left
 * out (the strings are filtered by the pattern itself).
 */
function generatorSource(pattern: RegExp): RegExp {
  const source = pattern.source
    .replace(/^\(\?!(?:[^()]|\([^()]*\))*\)/, '')
    .replaceAll('(?=', '(?:');
  return new RegExp(`^(?:${source})$`);
}

/** Whether `text` begins with a match of the sticky `pattern`. */
function beginsWithMatch(pattern: RegExp, text: string): boolean {
  const sticky = new RegExp(pattern.source, 'y');
  return sticky.test(text);
}

/** Characters the declarations' patterns test, and a few they never do. */
const CHARACTERS = fc.constantFrom(
  ...' \t\r\n\fa_Z9.-:>"\'{}[]()`<|=/\\xCALL_IDARGSname call é日'.split(''),
);

// Every declaration's readers built, as each dialect's first parser builds them: their
// patterns' hold-backs are derived then.
for (const dialect of [...DIALECTS, 'auto' as const])
  for (const reader of blockReaders(dialect, ['read_file'])) builtReader(reader);

describe('the derived hold-back of every declared header pattern', () => {
  const patterns = derivedPatterns();

  it('covers the declarations (functionary, Hermes, Gemma 4, Mistral, fences, Python calls, xLAM…)', () => {
    expect(patterns.length).toBeGreaterThanOrEqual(12);
  });

  for (const pattern of patterns)
    describe(`/${pattern.source}/`, () => {
      const mayMatch = mayBecomeMatch(pattern);

      it('every prefix of a match may still become one', () => {
        fc.assert(
          fc.property(
            fc.stringMatching(generatorSource(pattern)).filter((s) => beginsWithMatch(pattern, s)),
            (match) => {
              for (let k = 0; k <= match.length; k++)
                expect(mayMatch(match.slice(0, k))).toBe(true);
            },
          ),
          { numRuns: 150 },
        );
      });

      it('a text it says can never match is no match whatever follows it', () => {
        const matching = fc.stringMatching(generatorSource(pattern));
        fc.assert(
          fc.property(
            fc.string({ unit: CHARACTERS, maxLength: 12 }),
            fc.array(fc.oneof(fc.string({ unit: CHARACTERS, maxLength: 6 }), matching), {
              maxLength: 4,
            }),
            (text, suffixes) => {
              if (mayMatch(text)) return;
              expect(beginsWithMatch(pattern, text)).toBe(false);
              for (const suffix of suffixes)
                expect(beginsWithMatch(pattern, text + suffix)).toBe(false);
            },
          ),
          { numRuns: 300 },
        );
      });

      it('reads from an offset as it reads the text from there', () => {
        fc.assert(
          fc.property(
            fc.string({ unit: CHARACTERS, maxLength: 4 }),
            fc.string({ unit: CHARACTERS, maxLength: 10 }),
            (before, text) => {
              expect(mayMatch(before + text, before.length)).toBe(mayMatch(text));
            },
          ),
          { numRuns: 200 },
        );
      });
    });
});

describe('each construct it reads', () => {
  const cases: [RegExp, string[], string[]][] = [
    // pattern, texts that may still match, texts that never can
    [/abc/y, ['', 'a', 'ab', 'abc', 'abcd'], ['b', 'ac', 'x']],
    [/\[A\]\.\\/y, ['[', '[A]', '[A].\\'], ['A', '[A]x']],
    [/\x41\u00e9\n\r\t/y, ['A', 'Aé\n\r'], ['Ae', 'Aé\r']],
    [/[a-c_]x/y, ['a', 'b', '_x'], ['d', 'ay']],
    [/[^\s[\]"]z/y, ['q', 'é', 'qz'], [' ', '[', ']', '"', 'qq']],
    [/\s\w\d/y, ['\u00a0', ' a', '\ta1'], ['a', ' -', ' a_']],
    [/\S\W\D/y, ['a-', 'a-x'], [' ', 'aa', 'a-1']],
    [/[\s\d]/y, [' ', '5'], ['a']],
    [/a.b/y, ['a', 'aéb'], ['a\n', 'a\rb']],
    [/a.b/sy, ['a\n', 'a\nb'], ['ab ']],
    [/(ab|cd)e/y, ['a', 'c', 'cde'], ['ae', 'b']],
    [/(?:ab|cd)?e/y, ['', 'e', 'ab', 'abe'], ['ac', 'x']],
    [/(?<name>a)b/y, ['a', 'ab'], ['b']],
    [/a*b/y, ['', 'aaaa', 'aab'], ['ac']],
    [/a+b/y, ['a', 'aab'], ['', 'b'].slice(1)],
    [/a?b/y, ['', 'a', 'ab', 'b'], ['aa']],
    [/a{2,3}b/y, ['aa', 'aaa', 'aab', 'aaab'], ['ab', 'aaaa']],
    [/a{2}b/y, ['aab'], ['ab', 'aaa']],
    [/a{2,}b/y, ['aaaaaab'], ['ab']],
    [/a{1,3}?b/y, ['ab', 'aaab'], ['aaaa']],
    [/ab(?=c)/y, ['a', 'ab', 'abc', 'abcx'], ['abd']],
    [/a(?:b|(?=c))/y, ['ab', 'ac'], ['ad']],
    [/(?!ab)\w+!/y, ['a', 'ac!', 'abc'.slice(0, 1)], ['ab', 'abc!']],
    [/^ab/y, ['a'], ['b']],
  ];
  for (const [pattern, may, never] of cases)
    it(`/${pattern.source}/${pattern.flags}`, () => {
      const mayMatch = mayBecomeMatch(pattern);
      for (const text of may) expect(mayMatch(text), JSON.stringify(text)).toBe(true);
      for (const text of never) expect(mayMatch(text), JSON.stringify(text)).toBe(false);
    });

  it('answers alike past the bound on cached states (a text that meets over 4096 of them)', () => {
    const mayMatch = mayBecomeMatch(/a{0,1000}b{0,1000}c{0,1000}d{0,1000}e{0,1000}!/y);
    const long = ['a', 'b', 'c', 'd', 'e'].map((c) => c.repeat(1000)).join('');
    for (let round = 0; round < 2; round++) {
      expect(mayMatch(long)).toBe(true);
      expect(mayMatch(`${long}!`)).toBe(true);
      expect(mayMatch(`${long}e`)).toBe(false);
      expect(mayMatch(`${long.slice(0, 2500)}a`)).toBe(false);
    }
  });

  it('answers again and again the same from its cached states', () => {
    const mayMatch = mayBecomeMatch(/x[a-z]{0,40}y/y);
    for (let round = 0; round < 3; round++) {
      expect(mayMatch('xabc')).toBe(true);
      expect(mayMatch('xab1')).toBe(false);
    }
  });
});

/** A class of nothing (written as a string: the linter refuses it as a literal). */
const EMPTY_CLASS = '[]';

describe('a construct it cannot read is an error where the pattern is declared', () => {
  const unsupported: [RegExp, string][] = [
    [/(a)\1/y, "'\\1'"],
    [/ab$/y, "'$'"],
    [/\bab/y, "'\\b'"],
    [/(?<=a)b/y, "'(?<'"],
    [/a(?=b)c/y, 'a lookahead with more pattern after it'],
    [/(?:a(?=b))+/y, 'a repeated lookahead'],
    [/a(?!b)/y, 'a negative lookahead not at the start'],
    [/a{1,5000}/y, 'a bound over'],
    [new RegExp(EMPTY_CLASS, 'y'), 'an empty class'],
    [/\p{L}/uy, "'\\p'"],
    [/ab/iy, "the 'i' flag"],
  ];
  for (const [pattern, named] of unsupported)
    it(`/${pattern.source}/${pattern.flags} names ${named}`, () => {
      expect(() => mayBecomeMatch(pattern)).toThrow(UnsupportedPatternError);
      expect(() => mayBecomeMatch(pattern)).toThrow(named);
    });

  it('a family declaring such a pattern fails as its reader is built (its first parser), before any text', () => {
    const backReference = /(["'])name\1/y;
    const named = {
      format: 'hermes',
      kind: 'named',
      open: '<x>',
      close: '</x>',
      syntax: Syntax.Json,
      header: backReference,
      recoveries: BODY_RECOVERIES,
    } as const;
    expect(() => builtReader({ open: '<x>', reads: { body: named } })).toThrow(
      UnsupportedPatternError,
    );
    const confirmed = {
      open: '<y>',
      lineStart: backReference,
      reads: { body: { ...named, header: /(x)/y } },
    };
    expect(() => builtReader(confirmed)).toThrow(UnsupportedPatternError);
    const opening = { kind: 'named', prefix: '<x', pattern: /<x(["'])\1>/y } as const;
    const markup = { ...TAGCALL_FORM, call: { ...TAGCALL_FORM.call, opening } };
    expect(() => builtReader({ open: '<x', reads: { markup } })).toThrow("'\\1'");
  });
});
