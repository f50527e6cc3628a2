import { readFileSync } from 'node:fs';
import { isDeepStrictEqual } from 'node:util';
import { gunzipSync } from 'node:zlib';
import {
  buildDialectGrammar,
  createParser,
  type Dialect,
  type DialectGrammarOptions,
  dialectTriggers,
  type GrammarDialect,
  type ParseOptions,
  printGbnf,
  printLark,
  renderCallIn,
  type ToolLike,
} from './all.js';

// The recording of the engine as it was before #42's rewrite (fixtures/engine-events/, one
// JSONL file per dialect, written by scripts/record-engine-events.ts): for each case, its input
// and what the engine made of it. test/engine-differential.test.ts replays the inputs through
// today's engine and compares. The inputs are stored, not regenerated, so a change in a
// generator or a renderer cannot move the cases under the comparison.

export const RECORDING_DIR = new URL('../../fixtures/engine-events/', import.meta.url);
/** One dialect's recording: JSONL, gzipped (some 20 MiB of it in all, under 3 MiB so). */
export const recordingFile = (dialect: Dialect | 'auto') =>
  new URL(`${dialect}.jsonl.gz`, RECORDING_DIR);

/** The fixed small chunking every parse case is also fed in, unfolded, so deltas show. */
export const CHUNK_SIZE = 3;
const CHUNKED = `${CHUNK_SIZE}-character chunks`;

/** An event as JSON holds it: what is compared. */
export type RecordedEvent = { type: string } & Record<string, unknown>;

export interface ParseCase {
  kind: 'parse';
  name: string;
  options: ParseOptions;
  input: string;
  /** Whether it is also fed in chunks of `CHUNK_SIZE` (else whole only). */
  chunked: boolean;
}
/** A call as the renderer takes it. */
export type RenderableCall = Parameters<typeof renderCallIn>[1];

export interface RenderCase {
  kind: 'render';
  name: string;
  dialect: Dialect;
  call: RenderableCall;
}
export interface GrammarCase {
  kind: 'grammar';
  name: string;
  dialect: GrammarDialect;
  tools: ToolLike[];
  options: DialectGrammarOptions;
}
export type EngineCase = ParseCase | RenderCase | GrammarCase;

/** What the engine made of a case: for a parse, the events of each feed, by the feed's name. */
export type Outcome = Record<string, unknown>;

const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

function eventsOf(chunks: readonly string[], options: ParseOptions): RecordedEvent[] {
  const events: RecordedEvent[] = [];
  const parser = createParser({
    ...options,
    onEvent: (e) => events.push(asJson(e) as RecordedEvent),
  });
  for (const chunk of chunks) parser.feed(chunk);
  parser.end();
  return events;
}

const chunksOf = (text: string, size: number) =>
  text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];

const failure = (error: unknown) => ({
  error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
});

/** What today's engine makes of a case. */
export function outcomeOf(c: EngineCase): Outcome {
  switch (c.kind) {
    case 'parse':
      return {
        whole: eventsOf([c.input], c.options),
        ...(c.chunked && { [CHUNKED]: eventsOf(chunksOf(c.input, CHUNK_SIZE), c.options) }),
      };
    case 'render':
      try {
        return { output: renderCallIn(c.dialect, c.call) };
      } catch (error) {
        return failure(error);
      }
    case 'grammar':
      try {
        const grammar = buildDialectGrammar(c.dialect, c.tools, c.options);
        return {
          gbnf: printGbnf(grammar).split('\n'),
          lark: printLark(grammar).split('\n'),
          triggers: asJson(dialectTriggers(c.dialect, c.tools)),
        };
      } catch (error) {
        return failure(error);
      }
  }
}

/**
 * A case as lines of JSONL. A parse case is a header line (`case`, its options and input), then
 * for each feed a `feed` line and one line per event, so a diff of the recording shows the
 * events that changed; a render or grammar case is one line.
 */
export function linesOf(c: EngineCase, outcome: Outcome): string[] {
  if (c.kind !== 'parse') {
    const { kind, name, ...input } = c;
    return [JSON.stringify({ [kind]: name, ...input, ...outcome })];
  }
  const lines = [JSON.stringify({ case: c.name, options: c.options, input: c.input })];
  // Which feeds a case has is read back from its feed lines.
  for (const [feed, events] of Object.entries(outcome)) {
    lines.push(JSON.stringify({ feed }));
    for (const event of events as RecordedEvent[]) lines.push(JSON.stringify(event));
  }
  return lines;
}

export interface RecordedCase {
  case: EngineCase;
  outcome: Outcome;
}

/** The cases of one dialect's recording file, with what the engine made of each then. */
export function readRecording(dialect: Dialect | 'auto'): RecordedCase[] {
  const out: RecordedCase[] = [];
  let events: RecordedEvent[] | undefined;
  const text = gunzipSync(readFileSync(recordingFile(dialect))).toString('utf8');
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const row = JSON.parse(line) as Record<string, unknown>;
    if (typeof row.type === 'string' && events !== undefined) {
      events.push(row as RecordedEvent);
    } else if (typeof row.feed === 'string') {
      events = [];
      const last = out[out.length - 1];
      last.outcome[row.feed] = events;
      if (row.feed === CHUNKED) (last.case as ParseCase).chunked = true;
    } else if (typeof row.case === 'string') {
      events = undefined;
      const { case: name, options, input } = row;
      const c = { kind: 'parse', name, options, input, chunked: false } as ParseCase;
      out.push({ case: c, outcome: {} });
    } else {
      events = undefined;
      const kind = 'render' in row ? 'render' : 'grammar';
      const { [kind]: name, output, error, gbnf, lark, triggers, ...input } = row;
      const outcome = Object.fromEntries(
        Object.entries({ output, error, gbnf, lark, triggers }).filter(([, v]) => v !== undefined),
      );
      out.push({ case: { kind, name, ...input } as EngineCase, outcome });
    }
  }
  return out;
}

/**
 * Where today's outcome first departs from the recorded one, in words: the feed and the index
 * of the first event that differs (both events shown), or the field; null when they agree.
 */
export function firstDifference(recorded: Outcome, today: Outcome): string | null {
  const keys = [...new Set([...Object.keys(recorded), ...Object.keys(today)])];
  for (const key of keys) {
    const was = recorded[key];
    const now = today[key];
    if (isDeepStrictEqual(was, now)) continue;
    if (!Array.isArray(was) || !Array.isArray(now))
      return `${key}: recorded ${JSON.stringify(was)}, today ${JSON.stringify(now)}`;
    const n = Math.max(was.length, now.length);
    const item = key === 'gbnf' || key === 'lark' ? 'line' : 'event';
    for (let i = 0; i < n; i++)
      if (!isDeepStrictEqual(was[i], now[i]))
        return (
          `${key}, ${item} ${i} of ${was.length} recorded / ${now.length} today:\n` +
          `  recorded ${JSON.stringify(was[i]) ?? '(none)'}\n` +
          `  today    ${JSON.stringify(now[i]) ?? '(none)'}`
        );
  }
  return null;
}
