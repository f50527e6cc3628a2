/**
 * Merging stats (`mine` after each file, `stats --merge` over a cluster's parts): the result
 * does not depend on the order parts come in, and merging a folder's files one after another
 * costs work linear in the files (8,000 small files once took 15.8 CPU s, the calls-along-the-log
 * list merged anew after each).
 */
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../bench/corpus.js';
import { formatStats, statsJsonText } from '../src/cli/stats-command.js';
import {
  addMessage,
  createStats,
  mergeStats,
  type TranscriptStats,
} from '../src/transcripts/index.js';

/** One file's stats: messages on lines of a file of `lines` lines. */
function fileStats(index: number, lines: number, random: () => number): TranscriptStats {
  const stats = createStats();
  stats.files = 1;
  for (let line = 1; line <= lines; line += 1 + Math.floor(random() * 3))
    addMessage(stats, `logs/session-${String(index).padStart(6, '0')}.jsonl`, line);
  return stats;
}

const mergeAll = (parts: readonly TranscriptStats[]) =>
  parts.reduce((into, part) => mergeStats(into, part), createStats());

/** CPU milliseconds of one run of `work`. */
function cpuMs(work: () => void): number {
  const start = process.cpuUsage();
  work();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/**
 * The least CPU milliseconds of each of two pieces of work, run in turn `rounds` times: runs
 * of a few milliseconds that all of one then all of the other took read the heap's growth
 * and the compiler's late tiers as much as the work.
 */
function leastInTurn(rounds: number, a: () => void, b: () => void): [number, number] {
  let leastA = Number.POSITIVE_INFINITY;
  let leastB = Number.POSITIVE_INFINITY;
  for (let round = 0; round < rounds; round++) {
    leastA = Math.min(leastA, cpuMs(a));
    leastB = Math.min(leastB, cpuMs(b));
  }
  return [leastA, leastB];
}

describe('mergeStats', () => {
  it('gives the same stats whatever the order of the parts', () => {
    const random = seededRandom(3);
    // Small files, and a few long ones whose blocks grow coarser than a small file's.
    const parts = Array.from({ length: 400 }, (_, i) =>
      fileStats(i, i % 50 === 7 ? 5_000 : 1 + Math.floor(random() * 40), random),
    );
    const inOrder = mergeAll(parts);
    expect(inOrder.alongLog.blocks.length).toBeGreaterThan(0);
    expect(mergeAll([...parts].reverse())).toEqual(inOrder);
    const shuffled = [...parts].sort(() => random() - 0.5);
    expect(mergeAll(shuffled)).toEqual(inOrder);
  });

  it('writes the same text whatever the order of the parts (worker threads finish in any order)', () => {
    // Each part counts its own tools; some counts tie, so the order of the names is left to
    // the writer, not to which part came first.
    const parts = ['search', 'write', 'read', 'edit', 'list', 'run'].map((tool, i) => {
      const stats = createStats();
      stats.calls = 1 + (i % 3);
      stats.byTool[tool] = 1 + (i % 3);
      stats.byFormat[i % 2 === 0 ? 'xml' : 'json'] = 1;
      stats.warningsByCode[`w${i}`] = 1;
      return stats;
    });
    const written = statsJsonText(mergeAll(parts));
    expect(Object.keys(JSON.parse(written).byTool)).toEqual([
      'read',
      'run',
      'list',
      'write',
      'edit',
      'search',
    ]);
    expect(statsJsonText(mergeAll([...parts].reverse()))).toBe(written);
    expect(formatStats(mergeAll([...parts].reverse()))).toBe(formatStats(mergeAll(parts)));
  });

  it("costs linear work over a folder's files merged in order", () => {
    const random = seededRandom(5);
    const files = (n: number) => Array.from({ length: n }, (_, i) => fileStats(i, 3, random));
    const small = files(3_000);
    const large = files(6_000);
    mergeAll(small); // warm the code
    const [largeMs, smallMs] = leastInTurn(
      9,
      () => mergeAll(large),
      () => mergeAll(small),
    );
    const ratio = largeMs / smallMs;
    // Linear is 2, quadratic 4.
    expect(ratio).toBeLessThan(3);
  }, 120_000);
});
