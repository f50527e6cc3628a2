import type { CallFormat } from '../events.js';
import { LOOKAHEAD } from '../lookahead.js';
import { execWithin } from '../match-within.js';
import {
  type Recoveries,
  type Recovery,
  type RecoveryKind,
  VALUE_REPAIR_KINDS,
} from '../recoveries.js';
import { prefixTestOf } from '../regex-prefix.js';
import { readTag, startsWithAt, type Tag, TagKind } from '../tag.js';
import type { ValueText } from './value-text.js';

/** An opening tag read at a `<`: its name as written (maybe '') and length. */
export interface OpeningTag {
  name: string;
  length: number;
  /** It was read past text that does not belong in it: the declaration's row says so. */
  stray?: Recovery;
  /**
   * The reply was logged with its text escaped as in a JSON string (`\n` for newlines between
   * tags): the call's values are unescaped as they are read.
   */
  escaped?: boolean;
  /** The opening closes itself (`<invoke name="f"/>`): a call without arguments or close. */
  selfClosing?: boolean;
}

/**
 * A test of one group of an opening's match (0: the whole match): whether the group was
 * written and its text meets `test`.
 */
export interface GroupTest {
  group: number;
  test: RegExp;
}

/**
 * How an opening tag is written, as data the engine reads (`openingsOf`):
 * - `literal`: exactly this text, naming nothing, or always the same tool (`name`: a tag named
 *   after its tool);
 * - `tag`: any XML opening tag `<name>` (the name is the tag's);
 * - `named`: `prefix`, then what the sticky `pattern` matches, the name in its group 1 or 2.
 *   `stray`: rows, the first whose test holds (or without one) says what of the match does
 *   not belong in it (its recovery, or null: nothing); `escaped`: the reply was logged with
 *   its text escaped as in a JSON string (its values are unescaped as they are read);
 *   `selfClosing`: the opening closes itself where its test holds (`<invoke name="f"/>`, a
 *   call's opening: a call without arguments and without a closing tag).
 */
export type Opening =
  | { kind: 'literal'; text: string; name?: string }
  | { kind: 'tag' }
  | {
      kind: 'named';
      prefix: string;
      pattern: RegExp;
      stray?: readonly { when?: GroupTest; recovery: Recovery | null }[];
      escaped?: GroupTest;
      selfClosing?: GroupTest;
    };

/** How a parameter's written name becomes its argument's key: as written, or trimmed. */
export type KeyText = 'as-written' | 'trim';

/**
 * How a form reads its values' text: one `ValueText` for every value, or named keys' own
 * (Cline's `content` and `diff`) and one for the others.
 */
export type ValueTexts =
  | ValueText
  | { byKey: Readonly<Record<string, ValueText>>; otherwise: ValueText };

/**
 * A parameter's closing tag: always the same literal (`</parameter>`), or named after the
 * parameter's key, `before` it and `after` it (`</` and `>`: `</path>`).
 */
export type ParameterClose = string | { before: string; after: string };

/** Recoveries of every markup form: its calls, blocks and values, and the input's end. */
export const MARKUP_CORE_KINDS = [
  'unclosed-element',
  'unclosed-block',
  'unclosed-block-at-end',
  'unclosed-call-at-end',
] as const;
/** Recoveries of forms written as XML elements (`tags: 'xml'`). */
export const XML_ELEMENT_KINDS = [
  'unclosed-arguments',
  'duplicate-field',
  'argument-outside-arguments',
  'mismatched-call-close',
  'mismatched-arguments-close',
  'stray-close',
  'deprecated-json-form',
  ...VALUE_REPAIR_KINDS,
] as const;
/** Recoveries of forms written as their own literals (`tags: 'literal'`). */
export const LITERAL_TAG_KINDS = [
  'unclosed-value',
  'unclosed-call',
  'duplicate-parameter-listed',
  'duplicate-parameter-last',
] as const;
/** What a reader of each kind of tags checks its form declares. */
export const XML_FORM_KINDS = [...MARKUP_CORE_KINDS, ...XML_ELEMENT_KINDS] as const;
export const LITERAL_FORM_KINDS = [...MARKUP_CORE_KINDS, ...LITERAL_TAG_KINDS] as const;
export type MarkupRecoveryKind =
  | (typeof MARKUP_CORE_KINDS)[number]
  | (typeof XML_ELEMENT_KINDS)[number]
  | (typeof LITERAL_TAG_KINDS)[number];

/**
 * A markup form's recoveries: those of every form, and those of its kind of tags (the reader
 * checks them when it is built: a declaration that lacks one is a mistake of the code).
 */
export type MarkupRecoveries = Recoveries<(typeof MARKUP_CORE_KINDS)[number]> &
  Partial<Recoveries<RecoveryKind>>;

/**
 * A dialect whose calls and arguments are written as markup, described as data for the one
 * engine that reads them all (markup/reader.ts). Each family's module in src/protocol/dialects/
 * fills one in with its own markers: a call as XML elements (named by child fields, arguments
 * nested in a container, text with entities and CDATA), or as the family's own literals (a
 * named opening, each parameter a named element or a key and a value, values as written).
 */
export interface MarkupForm {
  format: CallFormat;
  /** How tags are told apart: XML-like tags read by name, or the form's literals. */
  tags: 'xml' | 'literal';
  /** The block around the calls (its opening and close), or null: the block is one call. */
  wrapper: { open: string; close: string } | null;
  call: {
    /** What an opening starts with (up to its name): without a name it is a mistake. */
    start: string;
    /** Reads a call's opening: its name, or '' when the call is named by `fields`. */
    opening: Opening;
    close: string;
    /**
     * What confirms the call's close written inside a value: the end of its line (`</tool>`,
     * whose calls are lines of their own), or the next call or the block's close; `token`: the
     * close ends with a special token no value can hold, so it counts wherever it stands
     * (after which some peers' texts write stray tokens).
     */
    closeInValue: 'line-end' | 'next-call' | 'token';
    /**
     * The call's opening again inside an unclosed call ends the first as an error, and a new
     * block opens there; otherwise it is text of the call.
     */
    reopenFails: boolean;
    unnamed: string;
    /**
     * The message when text inside a call is none of its parameters (a parameter's marker
     * missing or wrong, prose between parameters): the call fails, `unreadable-arguments`.
     */
    unreadable: string;
  };
  /** Child elements of the call that name it: the tool's and its server's. */
  fields?: { tool: string; server: string };
  /** The child element that holds the arguments (`arguments`); without it they are the call's children. */
  container?: string;
  parameter: {
    /** Reads a parameter's opening: its key as written. */
    opening: Opening;
    /** Its closing tag. */
    close: ParameterClose;
    /**
     * What a parameter opening starts with, when one at a line start inside a value means that
     * value was left open; null when values may hold such lines.
     */
    reopens: string | null;
  };
  /** The argument's key from a parameter's written name. */
  key: KeyText;
  /** How a value's text is read: XML text (entities, CDATA), or as `ValueTexts` says. */
  text: 'xml' | ValueTexts;
  /**
   * A parameter given twice: a list (repeated elements), or a mistake
   * read with `duplicate-field`, keeping the last when the tool's schema says it is no list.
   */
  repeated: 'list' | 'warn';
  /** The deprecated JSON form of a call (`{json}` as its body): a `{` first in the call. */
  jsonForm: boolean;
  /**
   * `\n` written as two characters counts as a newline between tags where a close is decided
   * (some servers log replies so); its openings say so with a warning.
   */
  escapedBlanks?: boolean;
  /** The message when a block ends holding no call. */
  empty: string;
  /** A form that is another one without its wrapper: read, with this row's warning. */
  missingWrapper?: Recovery;
  /** The warning each recovery emits (see MarkupRecoveries). */
  recoveries: MarkupRecoveries;
  /**
   * Such a form's wrapper close, which models still write after the call:
   * when it follows the call (blanks allowed), it is the call's text, not stray text.
   */
  orphanClose?: string;
}

/** The key a parameter written `name` gives its argument, as `key` says. */
export const keyOf = (key: KeyText, name: string): string => (key === 'trim' ? name.trim() : name);

/** How the value of `key` is read, as `texts` says. */
export function valueTextOf(texts: ValueTexts, key: string): ValueText {
  if (typeof texts === 'string') return texts;
  return Object.hasOwn(texts.byKey, key) ? texts.byKey[key] : texts.otherwise;
}

/** The closing tag of the parameter of `key`, as `close` says. */
export const closeOf = (close: ParameterClose, key: string): string =>
  typeof close === 'string' ? close : close.before + key + close.after;

/** The longest opening tag a reader waits for before deciding it is none. */
export const MAX_OPENING = LOOKAHEAD.openingTag.value;

/** Reads an opening tag at `at`: the tag, null when there is none, `partial` when `s` ends first. */
export type OpeningReader = (
  s: string,
  at: number,
  final: boolean,
) => OpeningTag | null | 'partial';

/** The readers of a form's openings, a call's and a parameter's. */
export interface FormOpenings {
  call: OpeningReader;
  parameter: OpeningReader;
}

const builtOpenings = new WeakMap<MarkupForm, FormOpenings>();

/**
 * The readers of `form`'s openings, built at the first ask and kept: a reader of its own for
 * each (one function for every kind of opening met objects of three shapes at each `<` and
 * read literal forms 4–5% slower). A `named` opening's test of whether a text may still become
 * its match is derived then, so a pattern the derivation cannot read throws when its reader is
 * built, never while a reply is read.
 */
export function openingsOf(form: MarkupForm): FormOpenings {
  let openings = builtOpenings.get(form);
  if (openings === undefined) {
    openings = { call: readerOf(form.call.opening), parameter: readerOf(form.parameter.opening) };
    builtOpenings.set(form, openings);
  }
  return openings;
}

/** Whether `test` holds of `match`. */
function holds(test: GroupTest, match: RegExpExecArray): boolean {
  const text = match[test.group];
  return text !== undefined && test.test.test(text);
}

/**
 * The reader of `opening`: the tag at `s[at]`, null when there is none, `partial` while `s`
 * ends within what may still become one (the longest a reader waits for is `MAX_OPENING`), so
 * the answer never depends on where the input was cut.
 */
function readerOf(opening: Opening): OpeningReader {
  if (opening.kind === 'tag') {
    const tag: Tag = { kind: TagKind.None, name: '', length: 0 };
    return (s, at, final) => {
      readTag(s, at, final, tag);
      if (tag.kind === TagKind.NeedMore) return 'partial';
      return tag.kind === TagKind.Open ? { name: tag.name, length: tag.length } : null;
    };
  }
  if (opening.kind === 'literal') {
    const { text, name = '' } = opening;
    return (s, at, final) => {
      const starts = startsWithAt(s, at, text);
      if (starts === null) return final ? null : 'partial';
      return starts ? { name, length: text.length } : null;
    };
  }
  const { prefix, pattern, stray, escaped, selfClosing } = opening;
  const begun = prefixTestOf(pattern);
  return (s, at, final) => {
    const starts = startsWithAt(s, at, prefix);
    // Row 'markup-opening-cut' of the end-of-input table: cut short, it names no call.
    if (starts === null) return final ? null : 'partial';
    if (!starts) return null;
    // Within what chunks would hold, so a longer match is no opening whole either.
    const match = execWithin(pattern, s, at, MAX_OPENING);
    // Row 'markup-opening-cut' too: the opening's start, its name not written.
    if (match === null)
      return !final && s.length - at < MAX_OPENING && begun(s, at) ? 'partial' : null;
    const tag: OpeningTag = { name: match[1] ?? match[2], length: pattern.lastIndex - at };
    const row = stray?.find((r) => r.when === undefined || holds(r.when, match));
    if (row !== undefined && row.recovery !== null) tag.stray = row.recovery;
    if (escaped !== undefined && holds(escaped, match)) tag.escaped = true;
    if (selfClosing !== undefined && holds(selfClosing, match)) tag.selfClosing = true;
    return tag;
  };
}
