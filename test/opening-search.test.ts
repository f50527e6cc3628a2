// The openings search (src/protocol/openings.ts) scans long text once for all openings that
// share a first character, and searches short text (a stream's chunk) with one indexOf each:
// two ways to the same answer. Long soups of every family's markers, read whole (the shared
// scan) and in small chunks (indexOf), must give the same folded events in every dialect.
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/corpus.js';
import { createParser, DIALECTS, type ParserEvent } from './support/all.js';
import { DIALECT_TOKENS } from './support/documents.js';
import { foldEvents } from './support/event-sequence.js';

const FILLER = [
  '\n',
  ' ',
  'text ',
  'a < b && c ',
  '{"name": "f", "arguments": {}}',
  'é 😀 ',
  '```\n',
];

/** A seeded soup of markers and prose, longer than the shared scan's threshold. */
function soup(seed: number, length: number): string {
  const random = seededRandom(seed);
  let out = '';
  while (out.length < length) {
    const pool = random() < 0.3 ? DIALECT_TOKENS : FILLER;
    out += pool[Math.floor(random() * pool.length)];
  }
  return out;
}

function events(text: string, dialect: string, size: number) {
  const seen: ParserEvent[] = [];
  const parser = createParser({
    dialect: dialect as 'auto',
    toolNames: ['read_file', 'write_file'],
    onEvent: (e) => seen.push(e),
  });
  if (size === 0) parser.feed(text);
  else for (let i = 0; i < text.length; i += size) parser.feed(text.slice(i, i + size));
  parser.end();
  return foldEvents(seen);
}

describe('the shared opening scan finds what one indexOf per opening finds', () => {
  for (const dialect of [...DIALECTS, 'auto'])
    it(`${dialect}: long marker soups, whole and in chunks`, () => {
      for (let seed = 1; seed <= 4; seed++) {
        const text = soup(seed, 12_000);
        const whole = events(text, dialect, 0);
        expect(events(text, dialect, 97), `seed ${seed}, 97-char chunks`).toEqual(whole);
        expect(events(text, dialect, 5000), `seed ${seed}, 5000-char chunks`).toEqual(whole);
      }
    });
});
