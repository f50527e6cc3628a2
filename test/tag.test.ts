// The literal matching every reader waits on (src/protocol/tag.ts): at a chunk's end, a
// literal that may still come is `null` (wait), one that cannot is `false` (decide now: the
// text goes out at once rather than after the rest of the literal's length has arrived).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  isTagFor,
  LiteralsSearch,
  partialSuffixStart,
  readTag,
  searchAnchor,
  startsWithAt,
  type Tag,
  TagKind,
} from '../src/protocol/tag.js';

describe('startsWithAt', () => {
  it('is true for the whole literal, null for a beginning cut by the end, false otherwise', () => {
    expect(startsWithAt('a</tool>', 1, '</tool>')).toBe(true);
    expect(startsWithAt('a</to', 1, '</tool>')).toBeNull();
    expect(startsWithAt('a<', 1, '</tool>')).toBeNull();
    expect(startsWithAt('a</x', 1, '</tool>')).toBe(false);
    expect(startsWithAt('a<|x', 1, '<|call|>')).toBe(false);
    expect(startsWithAt('a<｜DS', 1, '<｜DSML｜')).toBeNull();
    expect(startsWithAt('a', 1, '</tool>')).toBeNull();
  });

  it('agrees with the definition on any text and literal', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 12 }),
        fc.string({ minLength: 1, maxLength: 8 }),
        fc.nat(12),
        (s, literal, at0) => {
          const at = Math.min(at0, s.length);
          const rest = s.slice(at);
          const expected =
            rest.length >= literal.length
              ? rest.startsWith(literal)
              : literal.startsWith(rest)
                ? null
                : false;
          expect(startsWithAt(s, at, literal)).toBe(expected);
        },
      ),
    );
  });
});

describe('partialSuffixStart', () => {
  it('finds where a cut-off beginning of the literal starts at the end, or the end', () => {
    expect(partialSuffixStart('text </to', 0, '</tool>')).toBe(5);
    expect(partialSuffixStart('text </x', 0, '</tool>')).toBe(8);
    expect(partialSuffixStart('text <', 0, '</tool>')).toBe(5);
  });
});

/** What `readTag` reads at `at` of a whole text, by its grammar written as a pattern. */
function tagByGrammar(text: string, at: number): Omit<Tag, 'length'> & { length?: number } {
  const match = /^<(\/?)([A-Za-z_:\u0080-\uffff][\w:.\-\u0080-\uffff]{0,254})[ \t]*(\/?)>/.exec(
    text.slice(at),
  );
  if (match === null || (match[1] === '/' && match[3] === '/'))
    return { kind: TagKind.None, name: '' };
  const kind = match[1] === '/' ? TagKind.Close : match[3] === '/' ? TagKind.Empty : TagKind.Open;
  return { kind, name: match[2], length: match[0].length };
}

describe('readTag', () => {
  it('reads what the grammar says, whatever it read before (tags read before are kept)', () => {
    // Few pieces, so texts repeat tags, share their first characters (`<tool>`, `<tool_name>`)
    // and cut them short.
    const pieces = fc.constantFrom(
      '<',
      '</',
      '>',
      '/>',
      'tool',
      '_name',
      'a',
      ' ',
      '\t',
      'é',
      '-',
      '<tool>',
      '</tool_name>',
      'x y',
    );
    const texts = fc.array(
      fc.array(pieces, { maxLength: 8 }).map((p) => p.join('')),
      { minLength: 1, maxLength: 30 },
    );
    fc.assert(
      fc.property(texts, (list) => {
        const tag: Tag = { kind: TagKind.None, name: '', length: 0 };
        for (const text of list) {
          for (let at = text.indexOf('<'); at !== -1; at = text.indexOf('<', at + 1)) {
            const read = readTag(text, at, true, tag);
            const expected = tagByGrammar(text, at);
            expect(read.kind, `${JSON.stringify(text)} at ${at}`).toBe(expected.kind);
            if (expected.kind !== TagKind.None) {
              expect(read.name).toBe(expected.name);
              expect(read.length).toBe(expected.length);
            }
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('isTagFor', () => {
  it('says what comparing with the written tag says, without writing it', () => {
    const names = fc.constantFrom('tool', 'too', 'tool_call', '|tool|', '', '/tool', 'toolx');
    const literals = fc.oneof(
      fc.constantFrom('<tool>', '</tool>', '<tool_call>', '</tool_call>', '<|tool|>', '<>', '</>'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(literals, names, fc.boolean(), (literal, name, close) => {
        expect(isTagFor(literal, name, close)).toBe(
          literal === (close ? `</${name}>` : `<${name}>`),
        );
      }),
      { numRuns: 2000 },
    );
    expect(isTagFor('</tool>', 'tool', true)).toBe(true);
    expect(isTagFor('<tool>', 'tool', false)).toBe(true);
    expect(isTagFor('<tool>', 'tool', true)).toBe(false);
  });
});

describe('searchAnchor', () => {
  it('starts past a leading < or at the first character beyond ASCII', () => {
    expect(searchAnchor('<|python_tag|>')).toBe(1);
    expect(searchAnchor('<｜DSML｜')).toBe(1);
    expect(searchAnchor('[TOOL_CALLS]')).toBe(0);
    expect(searchAnchor('<|')).toBe(1);
    // A lone letter after the `<` would be a search that stops at every word.
    expect(searchAnchor('<a')).toBe(0);
    expect(searchAnchor('<')).toBe(0);
  });
});

/** Where the first of `literals` stands from `from`, by a search for each: `first`'s oracle. */
function firstByEach(literals: readonly string[], text: string, from: number): number {
  const each = literals.map((l) => text.indexOf(l, from)).filter((at) => at !== -1);
  return each.length === 0 ? -1 : Math.min(...each);
}

describe('LiteralsSearch', () => {
  it('finds the first place any literal stands, as searching for each would', () => {
    const closes = new LiteralsSearch(['<|call|>', '<|end|>', '<|return|>']);
    const text = 'a <| b <|x <|end|> c <|call|>';
    expect(closes.first(text, 0)).toBe(text.indexOf('<|end|>'));
    expect(closes.first(text, text.indexOf('<|end|>') + 1)).toBe(text.indexOf('<|call|>'));
    expect(closes.first(text, text.length)).toBe(-1);
    const dsml = new LiteralsSearch(['<｜DSML｜x', '<｜DSML｜y']);
    expect(dsml.first('<｜DSML｜z <｜DSML｜y', 0)).toBe(9);
  });

  it("with no common beginning, checks every place and ends at the text's end", () => {
    const mixed = new LiteralsSearch(['</tool>', '[END]']);
    expect(mixed.first('abc [END] </tool>', 0)).toBe(4);
    expect(mixed.first('abc', 0)).toBe(-1);
    expect(mixed.first('', 0)).toBe(-1);
  });

  it('finds the first opening, as a search for each would (openings of one family)', () => {
    // Hermes' openings share `<`, some their second character too; a one-character literal
    // stands wherever `<` does; a lone literal is one search.
    const sets = [
      ['<tool_call>', '<function_call>', '<response>', '<json>', '<tools>', '<tool>', '<function='],
      ['<|START_ACTION|>'],
      ['<', '<tool>'],
      ['[TOOL_CALLS]', '[THINK]'],
    ];
    const pieces = fc.constantFrom(
      '<',
      '<t',
      '<tool',
      '<tool>',
      '<tool_call>',
      '<function=',
      '<|START_ACTION|>',
      '[TOOL_CALLS]',
      '[',
      'a',
      ' ',
      '<x',
      'é',
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...sets),
        fc.array(pieces, { maxLength: 12 }).map((p) => p.join('')),
        fc.nat(40),
        (literals, text, from) => {
          const start = Math.min(from, text.length);
          expect(new LiteralsSearch(literals).first(text, start)).toBe(
            firstByEach(literals, text, start),
          );
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('agrees with the earliest indexOf of each literal', () => {
    const alphabet = fc.constantFrom('<', '|', 'a', 'b', '>', '｜');
    const word = fc.array(alphabet, { minLength: 1, maxLength: 4 }).map((cs) => cs.join(''));
    fc.assert(
      fc.property(
        fc.array(alphabet, { maxLength: 30 }).map((cs) => cs.join('')),
        fc.array(word, { minLength: 1, maxLength: 3 }),
        fc.nat(30),
        (text, literals, from0) => {
          const from = Math.min(from0, text.length);
          expect(new LiteralsSearch(literals).first(text, from)).toBe(
            firstByEach(literals, text, from),
          );
        },
      ),
    );
  });
});
