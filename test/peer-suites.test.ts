import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createParser, type ParseOptions, type ParserEvent } from './support/all.js';
import { cutsArbitrary, splitAt } from './support/chunk.js';
import { foldEvents } from './support/event-sequence.js';
import {
  optionsOfCase,
  type PeerCase,
  peerIndex,
  peerSuites,
  readingsOf,
  streamedBesideFinal,
} from './support/peer-suites.js';

// The parser test suites of vLLM, SGLang and llama.cpp, ported as data (fixtures/peers/, each
// case naming the peer's repository, file, commit and test): what each peer's tests say a
// model's text holds, read by tagcall in the dialect of that format.

function eventsOf(chunks: readonly string[], options: ParseOptions): ParserEvent[] {
  const events: ParserEvent[] = [];
  const parser = createParser({ ...options, onEvent: (e) => events.push(e) });
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return events;
}

const sized = (text: string, size: number) =>
  text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];

function expectReadAs(c: PeerCase, calls: PeerCase['calls'], content: string | null | undefined) {
  const { ours, expected } = readingsOf(c, calls, content);
  expect(ours).toStrictEqual(expected);
}

const suites = peerSuites();

for (const suite of suites)
  describe(`${suite.file}: ${suite.peer}'s ${suite.format} cases, read as ${suite.dialect}`, () => {
    const differences = new Map(suite['known-differences'].map((d) => [d.case, d]));

    it('names every known difference after a case, with a reason', () => {
      const names = new Set(suite.cases.map((c) => c.name));
      for (const d of suite['known-differences']) {
        expect(names.has(d.case), d.case).toBe(true);
        expect(d.reason.length, d.case).toBeGreaterThan(20);
      }
    });

    it('reviews every intended difference: keep (what a user of the family gains) or port', () => {
      for (const d of suite['known-differences'].filter((k) => k.kind === 'intended')) {
        expect(d.review?.decision, `${d.case}: write its review`).toMatch(/^(keep|port)$/);
        expect(d.review?.why.length ?? 0, d.case).toBeGreaterThan(20);
      }
    });

    for (const c of suite.cases) {
      const difference = differences.get(c.name);
      if (difference === undefined)
        it(`${c.name}: the peer's calls`, () => {
          expectReadAs(c, c.calls, c.content);
        });
      else {
        it(`${c.name}: ours, where we differ on purpose or by a bug (${difference.kind})`, () => {
          expectReadAs(c, difference.calls, difference.content);
        });
        if (difference.kind === 'bug')
          it.fails(`${c.name}: the peer's calls (a known bug: ${difference.reason})`, () => {
            expectReadAs(c, c.calls, c.content);
          });
      }

      const broken = (property: 'events' | 'deltas') =>
        difference?.breaks?.includes(property) === true ? it.fails : it;
      broken('events')(
        `${c.name}: the same events whole and in 1-, 3-, 7-character and random chunks`,
        () => {
          const options = optionsOfCase(c);
          const whole = foldEvents(eventsOf([c.input], options));
          for (const size of [1, 3, 7])
            expect(foldEvents(eventsOf(sized(c.input, size), options)), `${size}-char`).toEqual(
              whole,
            );
          fc.assert(
            fc.property(cutsArbitrary, (cuts) => {
              expect(foldEvents(eventsOf(splitAt(c.input, cuts), options))).toEqual(whole);
            }),
            { numRuns: 25 },
          );
        },
      );

      broken('deltas')(
        `${c.name}: every value's deltas joined are its final value, on every chunking`,
        () => {
          const options = optionsOfCase(c);
          for (const chunks of [[c.input], sized(c.input, 1), sized(c.input, 3), sized(c.input, 7)])
            for (const { where, streamed, final } of streamedBesideFinal(eventsOf(chunks, options)))
              expect(streamed, `${where} in ${chunks.length} chunks`).toBe(final);
        },
      );
    }
  });

describe('the peer suites', () => {
  const index = peerIndex();

  it('are each listed in fixtures/peers/index.json, beside the formats not ported and why', () => {
    expect(index.read.map((r) => r.file).sort()).toEqual(suites.map((s) => s.file).sort());
    for (const n of index['not-read'])
      expect(n.reason.length, `${n.peer} ${n.format}`).toBeGreaterThan(20);
  });

  it('are all here, each case with its source', () => {
    expect(suites.length).toBeGreaterThan(0);
    for (const suite of suites)
      for (const c of suite.cases) {
        expect(c.source.repo, c.name).toMatch(/^[\w.-]+\/[\w.-]+$/);
        expect(c.source.commit, c.name).toMatch(/^[0-9a-f]{40}$/);
        expect(c.source.path.length, c.name).toBeGreaterThan(0);
        expect(c.source.test.length, c.name).toBeGreaterThan(0);
      }
  });
});
