import {
  type BlockFailure,
  type BlockLimits,
  type BlockReader,
  type BlockSink,
  BlockStatus,
  type BlockStream,
  type Confirmation,
  type FirstCharacterChoice,
  MAX_LEADING_BLANKS,
  Streamed,
  type StreamForm,
  skipBlanks,
} from './block.js';
import { bodyTestsOf } from './body/form.js';
import { BodyReader } from './body/reader.js';
import type { ParseErrorCode } from './events.js';
import { LOOKAHEAD } from './lookahead.js';
import { openingsOf } from './markup/form.js';
import { MarkupReader } from './markup/reader.js';
import { execWithin } from './match-within.js';
import { prefixTestOf } from './regex-prefix.js';
import { readTag, startsWithAt, type Tag, TagKind } from './tag.js';

/** Whether what follows an opening (from `after`) confirms it; null when more input decides. */
export type OpeningTest = (s: string, after: number, final: boolean) => boolean | null;

/** Builds a block's stream, which reads it from its opening to its end. */
type StreamMaker = (sink: BlockSink, limits: BlockLimits) => BlockStream;

/**
 * A family's `BlockReader` as the engine reads it: its confirmations made tests and its form a
 * stream maker, built once per declaration (`builtReader`). Every built reader has the same
 * members, present or undefined, so the opening search meets one shape of object.
 */
export type BuiltReader = BlockOpening | MarkerOpening;

/** An opening of a block of calls, read by its form's stream. */
export interface BlockOpening extends Opening {
  readonly stream: StreamMaker;
}

/**
 * One of a family's answer markers (see AnswerMarkers), found where a special-token opening is
 * (so held in part, and told apart from an opening it shares a start with, the same way): it
 * opens no block, the scanner tells it as a `marker` event.
 */
export interface MarkerOpening extends Opening {
  readonly stream: null;
}

interface Opening {
  readonly open: string;
  readonly anywhere: boolean;
  readonly midLine: OpeningTest | undefined;
  readonly lineStart: OpeningTest | undefined;
  /** Read from the input's start: `inputStart(s, 0, final)`. */
  readonly inputStart: OpeningTest | undefined;
  readonly endsThinking: boolean;
  readonly inFence: boolean;
  readonly wordStart: boolean;
}

const built = new WeakMap<BlockReader, BuiltReader>();

/**
 * The engine's reader of a declaration, built the first time it is asked for (a dialect's
 * opening table is built once and shared by its parsers) and kept for the declaration.
 */
export function builtReader(declared: BlockReader): BuiltReader {
  let reader = built.get(declared);
  if (reader === undefined) {
    reader = {
      open: declared.open,
      anywhere: declared.anywhere === true,
      midLine: testOf(declared.midLine),
      lineStart: testOf(declared.lineStart),
      inputStart: testOf(declared.inputStart),
      endsThinking: declared.endsThinking === true,
      inFence: declared.inFence === true,
      wordStart: declared.wordStart === true,
      stream: streamMakerOf(declared),
    };
    built.set(declared, reader);
  }
  return reader;
}

const markers = new Map<string, MarkerOpening>();

/**
 * The engine's opening of an answer marker, built once per marker: found anywhere (outside
 * blocks and fences), or with `atInputStart` only where the input begins with it (the prompt
 * wrote what comes before it).
 */
export function markerOpening(marker: string, atInputStart = false): MarkerOpening {
  const key = `${atInputStart ? '^' : ''}${marker}`;
  let opening = markers.get(key);
  if (opening === undefined) {
    opening = {
      open: marker,
      anywhere: !atInputStart,
      midLine: undefined,
      lineStart: undefined,
      inputStart: atInputStart ? followedBy(marker) : undefined,
      endsThinking: false,
      inFence: false,
      wordStart: false,
      stream: null,
    };
    markers.set(key, opening);
  }
  return opening;
}

/** The longest look past an opening for what confirms it (a name and `(`, `name>{`). */
const MAX_HEAD_LOOK = LOOKAHEAD.headLook.value;

/** The test a confirmation declares (see `Confirmation`). */
function testOf(confirmation: Confirmation | undefined): OpeningTest | undefined {
  if (confirmation === undefined) return undefined;
  if (typeof confirmation === 'string') return followedBy(confirmation);
  if (confirmation instanceof RegExp) return matchedBy(confirmation);
  if ('unless' in confirmation) {
    const matches = matchedBy(confirmation.unless);
    return (s, after, final) => {
      const matched = matches(s, after, final);
      return matched === null ? null : !matched;
    };
  }
  return firstAfterBlanks(
    confirmation.afterBlanks,
    confirmation.maxBlanks ?? MAX_LEADING_BLANKS,
    confirmation.onlyBlanks,
  );
}

/**
 * Whether `head` (a sticky pattern) matches at `after`: true or false, or null while the
 * input may still become a match (it ends within `MAX_HEAD_LOOK` on the beginning of one).
 */
function matchedBy(head: RegExp): OpeningTest {
  const begun = prefixTestOf(head);
  return (s, after, final) => {
    // Within what chunks would hold, so a longer match is no head whole either.
    if (execWithin(head, s, after, MAX_HEAD_LOOK) !== null) return true;
    return !final && s.length - after < MAX_HEAD_LOOK && begun(s, after) ? null : false;
  };
}

/** Whether `text` follows at `after`. */
function followedBy(text: string): OpeningTest {
  return (s, after, final) => {
    const follows = startsWithAt(s, after, text);
    return follows === null ? (final ? false : null) : follows;
  };
}

/**
 * Whether, past at most `maxBlanks` blanks, the first character matches `first` (or an opening
 * tag stands there); `onlyBlanks` when the input ends on blanks.
 */
function firstAfterBlanks(first: RegExp | 'tag', maxBlanks: number, onlyBlanks: boolean) {
  const tag: Tag = { kind: TagKind.None, name: '', length: 0 };
  return (s: string, after: number, final: boolean): boolean | null => {
    const at = skipBlanks(s, after, Math.min(s.length, after + maxBlanks));
    if (at >= s.length) return final ? onlyBlanks : null;
    if (first !== 'tag') return first.test(s[at]);
    readTag(s, at, final, tag);
    return tag.kind === TagKind.NeedMore ? null : tag.kind === TagKind.Open;
  };
}

/** How a declaration's blocks are read: one form's stream, or the first character's choice. */
function streamMakerOf(declared: BlockReader): StreamMaker {
  const reads = declared.reads;
  if (!('byFirstCharacter' in reads)) return formStream(reads);
  const choices = reads.byFirstCharacter;
  const makers = choices.map(formStream);
  const otherwise = choices.findIndex((choice) => choice.first === undefined);
  const pick = (c: string): number => {
    for (let i = 0; i < choices.length; i++) {
      const first = choices[i].first;
      if (first?.test(c) === true) return i;
    }
    return otherwise;
  };
  return (sink, limits) => new FirstCharacterStream(declared.open, pick, makers, sink, limits);
}

/** The stream maker of one form, its patterns' tests derived now. */
function formStream(form: StreamForm | FirstCharacterChoice): StreamMaker {
  if ('markup' in form) {
    const markup = form.markup;
    // Its openings' readers now: a pattern the derivation cannot read throws here.
    openingsOf(markup);
    return (sink, limits) => new MarkupReader(markup, sink, limits);
  }
  const body = form.body;
  const tests = bodyTestsOf(body);
  return (sink, limits) => new BodyReader(body, tests, sink, limits);
}

/**
 * A block whose form is told by the first character of its body that is not blank, after
 * the opening `open`: `pick` gives the index in `makers` of the stream for it (for '' when the
 * input ends first), which then reads the whole block, opening included. The streams are built
 * once a parse and reset for each block (a new body reader per block was a tenth of a JSON
 * family's time, most of it the garbage collector's).
 *
 * A class, not an object literal: a literal's `status` getter is a new closure each time, so
 * each stream got a hidden class of its own. Those live in the old generation, and through
 * the getter's closure each one kept its whole parser alive past every minor collection:
 * a fresh parser of `auto` reading one short call cost 24 µs, four fifths of it the
 * garbage collector's, against 4 µs now.
 */
class FirstCharacterStream implements BlockStream {
  readonly #open: string;
  readonly #pick: (first: string) => number;
  readonly #makers: readonly StreamMaker[];
  readonly #sink: BlockSink;
  readonly #limits: BlockLimits;
  readonly #built: Array<BlockStream | undefined> = [];
  #inner: BlockStream | null = null;

  constructor(
    open: string,
    pick: (first: string) => number,
    makers: readonly StreamMaker[],
    sink: BlockSink,
    limits: BlockLimits,
  ) {
    this.#open = open;
    this.#pick = pick;
    this.#makers = makers;
    this.#sink = sink;
    this.#limits = limits;
  }

  #form(index: number): BlockStream {
    this.#built[index] ??= this.#makers[index](this.#sink, this.#limits);
    return this.#built[index];
  }

  run(s: string, from: number, offset: number, final: boolean): number {
    if (this.#inner === null) {
      const bodyStart = from + this.#open.length;
      const limit = bodyStart + MAX_LEADING_BLANKS;
      const first = skipBlanks(s, bodyStart, Math.min(s.length, limit));
      if (first >= s.length && !final) return from;
      this.#inner = this.#form(this.#pick(s[first] ?? ''));
    }
    return this.#inner.run(s, from, offset, final);
  }

  streamValue(chunk: string): Streamed {
    return this.#inner?.streamValue(chunk) ?? Streamed.No;
  }

  takeOwed(text: string): void {
    this.#inner?.takeOwed?.(text);
  }

  continues(chunk: string): boolean {
    return this.#inner?.continues?.(chunk) === true;
  }

  get status(): BlockStatus {
    return this.#inner?.status ?? BlockStatus.Open;
  }

  stop(code: ParseErrorCode, message: string, offset: number): BlockFailure {
    // Stopped before its first character picked a form: the first form says the failure (every
    // form is of one dialect, so it names the block's format).
    this.#inner ??= this.#form(0);
    return this.#inner.stop(code, message, offset);
  }

  reset(): void {
    // A stream that cannot be made new is built again when it is picked next.
    const built = this.#built;
    for (let i = 0; i < built.length; i++) {
      const stream = built[i];
      if (stream?.reset === undefined) built[i] = undefined;
      else if (stream === this.#inner) stream.reset();
    }
    this.#inner = null;
  }
}
