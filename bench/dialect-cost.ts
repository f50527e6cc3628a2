/**
 * What each dialect costs against `<tool>`: the benchmark corpus with its calls written in
 * every family's format (`inDialect`), each fed whole and in 4-character chunks, one message a
 * parser. The dialects are timed in interleaved rounds in one process, so a slow spell of the
 * machine lands on all of them alike; the median of the rounds counts.
 */
import { createParser, DIALECTS, type Dialect, parse } from 'tagcall/protocol';
import { CORPUS_BYTES } from './cases.js';
import { generateCorpus } from './corpus.js';
import { inDialect } from './dialect-corpus.js';
import { median, now, splitEvery, utf8Bytes } from './measure.js';

export const DIALECT_COST_CHUNKS = [0, 4];
const ROUNDS = 7;

export interface DialectCostRow {
  dialect: Dialect;
  chunk: number;
  mbps: number;
  calls: number;
  expected: number;
}

export function runDialectCost(chunk: number): DialectCostRow[] {
  const corpus = generateCorpus(CORPUS_BYTES);
  // Cline's tags are tool names: every dialect is told them, alike.
  const toolNames = [
    ...new Set(corpus.messages.flatMap((m) => parse(m).calls.map((c) => c.toolName))),
  ];
  const only = process.env.TAGCALL_BENCH_DIALECTS?.split(',');
  const inputs = DIALECTS.filter((d) => only === undefined || only.includes(d)).map((dialect) => {
    const messages = inDialect(corpus.messages, dialect);
    return {
      dialect,
      bytes: utf8Bytes(messages),
      chunks: messages.map((m) => (chunk === 0 ? [m] : splitEvery(m, chunk))),
    };
  });
  const times = inputs.map((): number[] => []);
  const calls = inputs.map(() => 0);
  // One collection before all: a forced one before each pass left the heap so small that the
  // pass after it ran 3x slower in the dialects that allocate most (no server runs that way).
  (globalThis as { gc?: () => void }).gc?.();
  for (let round = 0; round < ROUNDS; round++)
    inputs.forEach((input, i) => {
      let found = 0;
      const parser = createParser({
        dialect: input.dialect,
        toolNames,
        onEvent: (event) => {
          if (event.type === 'tool-end') found++;
        },
      });
      const started = now();
      for (const message of input.chunks) {
        for (const piece of message) parser.feed(piece);
        parser.end();
      }
      times[i].push(now() - started);
      calls[i] = found;
    });
  return inputs.map((input, i) => ({
    dialect: input.dialect,
    chunk,
    mbps: input.bytes / 1e6 / (median(times[i].slice(1)) / 1000),
    calls: calls[i],
    expected: corpus.calls,
  }));
}
