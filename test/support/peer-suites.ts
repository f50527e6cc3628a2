import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import {
  coerceArguments,
  type Dialect,
  type JsonSchema,
  type JsonValue,
  type ParseOptions,
  type ParseResult,
  type ParserEvent,
  parse,
} from './all.js';

/** A call as the peers' tests state it: a name and its arguments. */
export interface PeerCall {
  name: string;
  /** A string where the peer returns arguments text that is no JSON object (a cut-off call). */
  arguments: { [key: string]: JsonValue } | string;
}

/** One case of a peer's test suite: model text and the calls the peer's test expects of it. */
export interface PeerCase {
  name: string;
  /** Where the case is quoted from: the peer's repository, test file, commit and test. */
  source: { repo: string; path: string; commit: string; test: string };
  dialect: Dialect | 'auto';
  toolNames?: string[];
  /** Set where the peer's test says the chat template opened the thinking (llama.cpp's thinking_forced_open). */
  prefilledThinking?: 'always';
  /** The tools' parameter schemas, where the peer types values by them (text-valued formats). */
  schemas?: Record<string, JsonSchema>;
  input: string;
  calls: PeerCall[];
  /** The text outside calls, where the peer's test checks it (null: the peer says none). */
  content?: string | null;
  /** Where the peer checks less than the case states (names only, no exception): what it checks. */
  note?: string;
}

/**
 * Where we differ from the peer: `intended` (documented behaviour: we read more or less than the
 * peer, or keep a value the peer changes) asserts our result; `bug` asserts ours too and marks
 * the peer's expectation as failing, so a fix turns that test red until the entry goes.
 */
export interface KnownDifference {
  case: string;
  kind: 'intended' | 'bug';
  reason: string;
  /**
   * The review of an `intended` difference against what a user of the family expects (#43):
   * `keep` where a user would choose our reading (`why` says for what), `port` where the peer's
   * reading is what a user expects and ours is still to change.
   */
  review?: { decision: 'keep' | 'port'; why: string };
  calls: PeerCall[];
  content?: string | null;
  /** The properties a bug breaks besides the calls: those tests are marked as failing too. */
  breaks?: Array<'events' | 'deltas'>;
}

export interface PeerSuite {
  file: string;
  peer: string;
  format: string;
  dialect: Dialect | 'auto';
  note?: string;
  cases: PeerCase[];
  'known-differences': KnownDifference[];
  /** The peer's tests of the file that are not model text → calls, and why. */
  omitted?: Array<{ test: string; reason: string }>;
}

export const PEERS_DIR = fileURLToPath(new URL('../../fixtures/peers/', import.meta.url));

/** `fixtures/peers/index.json`: the files read, and the peers' formats not ported, with why. */
export interface PeerIndex {
  read: Array<{ file: string; peer: string; format: string; dialect: string }>;
  'not-read': Array<{
    peer: string;
    format: string;
    source: { repo: string; path: string; commit?: string };
    reason: string;
  }>;
}

export const peerIndex = (): PeerIndex =>
  JSON.parse(readFileSync(join(PEERS_DIR, 'index.json'), 'utf8')) as PeerIndex;

/** Every `fixtures/peers/<peer>/<format>.json`. */
export function peerSuites(): PeerSuite[] {
  const suites: PeerSuite[] = [];
  for (const peer of readdirSync(PEERS_DIR, { withFileTypes: true })) {
    if (!peer.isDirectory()) continue;
    for (const file of readdirSync(join(PEERS_DIR, peer.name)).sort())
      if (file.endsWith('.json'))
        suites.push({
          file: `${peer.name}/${file}`,
          ...JSON.parse(readFileSync(join(PEERS_DIR, peer.name, file), 'utf8')),
        });
  }
  return suites;
}

export function optionsOfCase(c: PeerCase): ParseOptions {
  return {
    dialect: c.dialect,
    ...(c.toolNames !== undefined && { toolNames: c.toolNames }),
    ...(c.prefilledThinking !== undefined && { prefilledThinking: c.prefilledThinking }),
    ...(c.schemas !== undefined && { schemas: c.schemas }),
  };
}

/**
 * Our calls in the peers' terms: name and arguments, typed by the case's schemas as dispatch
 * types them (the peers type text values at parse time; we do it after, with the same schema).
 */
export function callsOf(result: ParseResult, c: PeerCase): PeerCall[] {
  return result.calls.map((call) => {
    const schema = c.schemas?.[call.toolName];
    return {
      name: call.toolName,
      arguments: schema === undefined ? call.arguments : coerceArguments(call.arguments, schema),
    } as PeerCall;
  });
}

/** The text outside calls as the peers compare it: blanks at either end do not count. */
const contentOf = (text: string) => text.trim();

/** A reading in the terms the peers' tests check: the calls, and the content where checked. */
export interface PeerReading {
  calls: PeerCall[];
  content?: string;
}

/**
 * What a case's test compares: our reading of its input, and the one expected (the peer's, or a
 * known difference's). `content` undefined: the content is not checked; null: none expected.
 */
export function readingsOf(
  c: PeerCase,
  calls: PeerCall[],
  content: string | null | undefined,
): { ours: PeerReading; expected: PeerReading } {
  const result = parse(c.input, optionsOfCase(c));
  // The parser's arguments are JSON values in null-prototype objects: as plain JSON they compare
  // deeply and strictly with the case's, in the test (toStrictEqual) and the table alike.
  const ours: PeerReading = { calls: JSON.parse(JSON.stringify(callsOf(result, c))) };
  const expected: PeerReading = { calls };
  if (content !== undefined) {
    ours.content = contentOf(result.text);
    expected.content = contentOf(content ?? '');
  }
  return { ours, expected };
}

/** Whether a case reads as its peer's test expects: our calls and content equal the peer's. */
export function readsAsPeerExpects(c: PeerCase): boolean {
  const { ours, expected } = readingsOf(c, c.calls, c.content);
  return isDeepStrictEqual(ours, expected);
}

/** The value an argument-delta's path points at in a call's final arguments. */
function valueAt(args: JsonValue, names: readonly string[], indices: readonly number[]): unknown {
  let value: unknown = args;
  for (let k = 0; k < names.length; k++) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, unknown>)[names[k]];
    if (Array.isArray(value)) value = value[indices[k]];
    else if (indices[k] !== 0) return undefined;
  }
  return value;
}

/**
 * Each streamed value's deltas joined, beside the value its path holds in the call that ended:
 * they must be equal (a preview the final parse contradicts is a retraction the contract forbids).
 */
export function streamedBesideFinal(
  events: readonly ParserEvent[],
): Array<{ where: string; streamed: string; final: unknown }> {
  const streamed = new Map<
    string,
    Map<string, { names: readonly string[]; indices: readonly number[]; text: string }>
  >();
  const out: Array<{ where: string; streamed: string; final: unknown }> = [];
  for (const e of events) {
    if (e.type === 'argument-delta') {
      const byPath = streamed.get(e.id) ?? new Map();
      streamed.set(e.id, byPath);
      const key = JSON.stringify([e.path.names, e.path.indices]);
      const entry = byPath.get(key) ?? { names: e.path.names, indices: e.path.indices, text: '' };
      entry.text += e.text;
      byPath.set(key, entry);
    } else if (e.type === 'tool-end') {
      for (const [key, entry] of streamed.get(e.call.id) ?? [])
        out.push({
          where: `${e.call.toolName} ${key}`,
          streamed: entry.text,
          final: valueAt(e.call.arguments, entry.names, entry.indices),
        });
    }
  }
  return out;
}
