/**
 * `auto` on hostile text: a flood of one marker fed 1–4 characters at a time, against the
 * slowest single dialect on the same flood. The markers are every family's, as its declaration
 * writes them (test/support/flood-shapes.ts), each repeated in a line and as lines of their
 * own. CPU time; the two slowest dialects found by a pass over them all, then they and `auto`
 * timed in turn: the median of the rounds' `auto` / the slower of the two counts.
 */
import { createParser, DIALECTS, type Dialect } from 'tagcall/protocol';
import { cpuMs, floodChunks, floodShapes } from '../test/support/flood-shapes.js';
import { median } from './measure.js';

/**
 * Characters a flood: the pass that names the slowest dialects reads a quarter of it. The
 * issue's own case is read at its size too.
 */
const FLOOD = 65_536;
const ISSUE_FLOOD = { unit: '<|tool_call_begin|>', length: 1_900_000, named: 'kimi-k2' as Dialect };
const ROUNDS = 3;
/** The dialects the first pass names the slowest, timed again with `auto`. */
const CANDIDATES = 2;

export interface FloodRow {
  unit: string;
  length: number;
  /** CPU ms of `auto`, of the slowest single dialect, and which it was (medians). */
  auto: number;
  slowest: number;
  slowestDialect: Dialect;
  /** The median of the rounds' auto / slowest. */
  ratio: number;
  /** The dialect the issue named, and its CPU ms, where one was. */
  named?: { dialect: Dialect; ms: number };
}

function read(dialect: Dialect | 'auto', chunks: readonly string[]): void {
  const parser = createParser({ dialect, toolNames: ['read_file'], onEvent: () => {} });
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
}

function measure(unit: string, length: number, named?: Dialect): FloodRow {
  const chunks = floodChunks(unit, length);
  const warm = chunks.slice(0, 4096);
  // A first pass names the slowest. Each dialect is read in two passes over them all, the less
  // of its two counting: read twice in a row, the dialects read first on a new shape paid the
  // compiler's work on the shared engine (tagcall, first, took 16-20 ms on a flood it reads in
  // 2), were named the slowest, and the dialect really slowest was left out.
  for (const dialect of DIALECTS) read(dialect, warm);
  const least = new Map<Dialect, number>();
  for (let pass = 0; pass < 2; pass++)
    for (const dialect of DIALECTS) {
      const ms = cpuMs(() => read(dialect, chunks));
      least.set(dialect, Math.min(ms, least.get(dialect) ?? ms));
    }
  const once = [...least].map(([dialect, ms]) => ({ dialect, ms })).sort((a, b) => b.ms - a.ms);
  const candidates = once.slice(0, CANDIDATES).map((c) => c.dialect);
  read('auto', warm);
  const autos: number[] = [];
  const times = new Map<Dialect, number[]>(candidates.map((d) => [d, []]));
  const ratios: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const auto = cpuMs(() => read('auto', chunks));
    let slowest = 0;
    for (const dialect of candidates) {
      const ms = cpuMs(() => read(dialect, chunks));
      times.get(dialect)?.push(ms);
      slowest = Math.max(slowest, ms);
    }
    autos.push(auto);
    ratios.push(auto / slowest);
  }
  const [slowestDialect, slowestTimes] = [...times].reduce((a, b) =>
    median(b[1]) > median(a[1]) ? b : a,
  );
  const row: FloodRow = {
    unit,
    length,
    auto: median(autos),
    slowest: median(slowestTimes),
    slowestDialect,
    ratio: median(ratios),
  };
  if (named !== undefined) {
    const namedTimes = Array.from({ length: ROUNDS }, () => cpuMs(() => read(named, chunks)));
    row.named = { dialect: named, ms: median(namedTimes) };
  }
  return row;
}

export function runAutoFlood(): FloodRow[] {
  return [
    measure(ISSUE_FLOOD.unit, ISSUE_FLOOD.length, ISSUE_FLOOD.named),
    ...floodShapes().map(({ unit }) => measure(unit, FLOOD)),
  ];
}
