import type { ParseErrorCode, ParseWarningCode } from './events.js';
import type { RecoveryKind } from './recoveries.js';

/**
 * What the end of the input decides, in one place: a row for each place the parser can be when
 * `end()` comes, with what becomes of what it held there. The code that decides names its row
 * (a text row in a comment, a row with a code by reading the row: its code and its message come
 * from here), and docs/parser.md "End of input" lists the same rows (a test holds them equal).
 *
 * Outcomes: the held input is `text`; a `call` is told (with a warning when it was not closed as
 * written); an `error` says the block was no call (its text comes back after it); `thinking`
 * ends there (with a warning when its close was missing).
 */
export type EndOutcome = 'text' | 'call' | 'error' | 'thinking';

interface EndRowBase {
  readonly id: string;
  /** Where the input ended. */
  readonly where: string;
  readonly outcome: EndOutcome;
}

/** A row whose held input is text, or whose call or thinking ends as written: no code. */
export interface QuietEndRow extends EndRowBase {
  readonly code?: undefined;
}

/**
 * A row that tells a call or ends thinking with a warning: the recovery it makes, whose row in
 * the family's declaration words the warning (src/protocol/recoveries.ts), and that row's code.
 */
export interface WarningEndRow extends EndRowBase {
  readonly outcome: 'call' | 'thinking';
  readonly code: ParseWarningCode;
  readonly recovery: RecoveryKind;
}

/**
 * A row whose block is no call: an error, its text given back. Its message is the row's, from
 * the block's markers; without one, the block's engine says what its form left unclosed.
 */
export interface ErrorEndRow extends EndRowBase {
  readonly outcome: 'error';
  readonly code: ParseErrorCode;
  readonly message?: (open: string, close: string) => string;
}

export type EndOfInputRow = QuietEndRow | WarningEndRow | ErrorEndRow;

const BLOCK_NOT_CLOSED = (open: string, close: string): string =>
  `the ${open} block was not closed with ${close} before the input ended`;

/** The rows, keyed by id; in the order of docs/parser.md's table. */
export const END_OF_INPUT = {
  // --- The top level (scanner.ts). ---
  'mid-line': {
    id: 'mid-line',
    where: 'in a line of text, nothing undecided',
    outcome: 'text',
  },
  'line-start-blanks': {
    id: 'line-start-blanks',
    where: 'at a line start, in its leading blanks',
    outcome: 'text',
  },
  'partial-surrogate': {
    id: 'partial-surrogate',
    where: 'after the first half of a surrogate pair',
    outcome: 'text',
  },
  'partial-opening': {
    id: 'partial-opening',
    where: "at a line start, on the start of a block's opening (`<too`)",
    outcome: 'text',
  },
  'partial-opening-mid-line': {
    id: 'partial-opening-mid-line',
    where: 'mid-line, on the start of a special token that opens a block anywhere',
    outcome: 'text',
  },
  'partial-input-start': {
    id: 'partial-input-start',
    where: 'at the input start, on the start of an opening that stands only there',
    outcome: 'text',
  },
  'partial-think-tag': {
    id: 'partial-think-tag',
    where: 'at a line start, on the start of a thinking tag (`<thi`)',
    outcome: 'text',
  },
  'fence-line': {
    id: 'fence-line',
    where: 'on a line of backticks or tildes, not yet known to be a fence',
    outcome: 'text',
  },
  'bracket-open': {
    id: 'bracket-open',
    where: 'after a line-start `[` whose `]` has not come',
    outcome: 'text',
  },
  'bracket-closed': {
    id: 'bracket-closed',
    where: 'after a line-start `[…]`, in the blanks that may end its line',
    outcome: 'thinking',
  },
  // --- Thinking (thinking.ts, prefilled-thinking.ts). ---
  'thinking-open': {
    id: 'thinking-open',
    where: 'inside a thinking tag (or `prefilledThinking: always`), its close not written',
    outcome: 'thinking',
    code: 'unclosed-thinking',
    recovery: 'unclosed-thinking',
  },
  'thinking-after-call': {
    id: 'thinking-after-call',
    where: "after a call whose token ended open thinking, before the thinking's text goes on",
    outcome: 'thinking',
    code: 'unclosed-thinking',
    recovery: 'unclosed-thinking',
  },
  'prefilled-undecided': {
    id: 'prefilled-undecided',
    where: '`prefilledThinking: auto`, no `</think>` yet (nor the start of one): the start is held',
    outcome: 'text',
  },
  // --- A block of calls (call-assembler.ts, markup/core.ts, body/*). ---
  'block-open': {
    id: 'block-open',
    where: "in a block its engine left open at the end (the assembler's rule for any engine)",
    outcome: 'error',
    code: 'incomplete-tool-call',
    message: () => 'the block was not closed before the input ended',
  },
  'markup-cut': {
    id: 'markup-cut',
    where: 'in a markup block: its opening, a name, a tag, a value, or a call not yet complete',
    outcome: 'error',
    code: 'incomplete-tool-call',
    message: BLOCK_NOT_CLOSED,
  },
  'markup-opening-cut': {
    id: 'markup-opening-cut',
    where: "in a markup block, on a call's opening not yet complete (`<invoke`)",
    outcome: 'error',
    code: 'missing-tool-name',
  },
  'markup-cdata': {
    id: 'markup-cdata',
    where: 'in a markup value, inside a CDATA section',
    outcome: 'error',
    code: 'incomplete-tool-call',
    message: () => 'a CDATA section was not closed with ]]> before the input ended',
  },
  'markup-call-complete': {
    id: 'markup-call-complete',
    where: "in a markup call, named, every value closed, only the call's close missing",
    outcome: 'call',
    code: 'unclosed-call-at-end',
    recovery: 'unclosed-call-at-end',
  },
  'markup-between-calls': {
    id: 'markup-between-calls',
    where: "in a markup block's wrapper, between calls, after one at least",
    outcome: 'call',
    code: 'unclosed-call-at-end',
    recovery: 'unclosed-block-at-end',
  },
  'markup-trailer': {
    id: 'markup-trailer',
    where: "after a call written without its wrapper, where the wrapper's close may follow",
    outcome: 'call',
  },
  'body-header-cut': {
    id: 'body-header-cut',
    where: "in a JSON-bodied block's header (a name not yet complete)",
    outcome: 'error',
    code: 'incomplete-tool-call',
  },
  'body-value-cut': {
    id: 'body-value-cut',
    where:
      "inside a body's value (JSON, a Python call, …) not yet complete, a call's name cut before its `(` included",
    outcome: 'error',
    code: 'incomplete-tool-call',
  },
  'body-word-at-end': {
    id: 'body-word-at-end',
    where:
      'in a JSON body\'s value, on a bare word that is no value nor the start of one (`"x": yes`)',
    outcome: 'error',
    code: 'invalid-json',
  },
  'body-close-partial': {
    id: 'body-close-partial',
    where: "in a body, where a value may follow a complete call, on the start of the block's close",
    outcome: 'call',
    code: 'unclosed-call-at-end',
    recovery: 'unclosed-call-at-end',
  },
  'body-call-complete': {
    id: 'body-call-complete',
    where: "after a body's complete value (or between values), only a close missing",
    outcome: 'call',
    code: 'unclosed-call-at-end',
    recovery: 'unclosed-call-at-end',
  },
  'body-list-open': {
    id: 'body-list-open',
    where:
      "in a body's list of calls (or the object it stands in), after a complete call and no comma, only the list's `]` (the object's `}`, the block's close) missing",
    outcome: 'call',
    code: 'unclosed-call-at-end',
    recovery: 'unclosed-call-at-end',
  },
  'sections-empty': {
    id: 'sections-empty',
    where: 'in a block of sections (DeepSeek, Kimi K2), before any call',
    outcome: 'error',
    code: 'incomplete-tool-call',
  },
  'sections-header-cut': {
    id: 'sections-header-cut',
    where: "in a section call's header, before its separator",
    outcome: 'error',
    code: 'incomplete-tool-call',
  },
  'message-header-cut': {
    id: 'message-header-cut',
    where: "in a message's header (gpt-oss), before the token that ends it",
    outcome: 'error',
    code: 'incomplete-tool-call',
  },
  'message-thinking': {
    id: 'message-thinking',
    where: "in a message of thinking (gpt-oss's analysis channel), its end not written",
    outcome: 'thinking',
  },
} as const satisfies Record<string, EndOfInputRow>;

export type EndOfInputId = keyof typeof END_OF_INPUT;
