import type { Recoveries, Recovery, RecoveryKind } from '../recoveries.js';

/**
 * The recoveries the families share, as rows: each kind's warning and its words (`{name}`s are
 * the values the engine fills in, RECOVERY_VALUES). A family spreads the sets its forms read
 * and adds or overrides its own rows; the engine emits a recovery's warning only through them.
 */

const row = (code: Recovery['code'], message: string): Recovery => ({ code, message });

/** A call complete but for its closers when the input ends: a server stripped its stop token. */
const UNCLOSED_CALL_AT_END = row(
  'unclosed-call-at-end',
  'the call was complete but not closed with {close}; it ends with the input',
);

/** Every markup form's: its children, its elements and its block. */
export const MARKUP_RECOVERIES = {
  'unclosed-element': row(
    'unclosed-element',
    '<{name}> was not closed before an enclosing closing tag',
  ),
  'unclosed-block': row(
    'unclosed-element',
    'the block was not closed with {close}; it ends at the next {open}',
  ),
  'unclosed-block-at-end': row(
    'unclosed-call-at-end',
    'the block was not closed with {close}; it ends with the input',
  ),
  'unclosed-call-at-end': UNCLOSED_CALL_AT_END,
} as const satisfies Partial<Recoveries<RecoveryKind>>;

/**
 * A form of the family's own literals: its words for a call and a value left open (`call` and
 * `value` say what was not closed with what), and a parameter given twice.
 */
export const literalRecoveries = (call: string, value: string) =>
  ({
    ...MARKUP_RECOVERIES,
    'unclosed-call': row('unclosed-element', `${call}; it ends at {ending}`),
    'unclosed-value': row('unclosed-element', `${value}; it ends at {ending}`),
    'duplicate-parameter-listed': row(
      'duplicate-field',
      'parameter {key} is given more than once; its values make a list',
    ),
    'duplicate-parameter-last': row(
      'duplicate-field',
      'parameter {key} is given more than once; the last is kept, as the tool takes one',
    ),
  }) as const satisfies Partial<Recoveries<RecoveryKind>>;

/** JSON strict parsing rejects but its writer meant: `what` says which mistake, read as meant. */
const repaired = (what: string) =>
  row('repaired-json', `the JSON is not strict (${what}); it was read as meant, write strict JSON`);

/**
 * A value read as its writer meant it: JSON that is not strict (a value's reader says the
 * first of its repairs), a number kept as written.
 */
export const VALUE_RECOVERIES = {
  'raw-control-in-string': repaired('a raw newline or tab in a string'),
  'unescaped-quote': repaired('a quote inside a string that was not escaped'),
  'single-quoted-string': repaired('a single-quoted string'),
  'escaped-single-quote': repaired('an escaped single quote'),
  'invalid-escape': repaired('an invalid escape, kept as written'),
  'brackets-left-open': repaired('{count} bracket(s) left open'),
  'trailing-comma': repaired('a trailing comma'),
  'unquoted-key': repaired('an unquoted key'),
  'mismatched-bracket': repaired('{bracket} closes what was left open'),
  'missing-comma': repaired('a missing comma'),
  'loose-number': repaired('the number {number}'),
  'python-literal': repaired("Python's {word}"),
  comment: repaired('a comment'),
  'inexact-number': row(
    'inexact-number',
    'the number {number} cannot be held exactly; it is kept as written, as a string',
  ),
} as const satisfies Partial<Recoveries<RecoveryKind>>;

/** Every body form's: its values, its arguments, and the input's end. */
export const BODY_RECOVERIES = {
  ...VALUE_RECOVERIES,
  'duplicate-argument': row(
    'duplicate-field',
    'argument {key} is given more than once; the last one counts',
  ),
  'string-encoded-arguments': row(
    'string-encoded-arguments',
    'the arguments were written as a JSON string holding the object; read as the object',
  ),
  'repaired-json-in-string': row('repaired-json', "in the arguments' string: {repair}"),
  'unclosed-call-at-end': UNCLOSED_CALL_AT_END,
} as const satisfies Partial<Recoveries<RecoveryKind>>;

/** A body whose calls stand in a fence inside its block. */
export const FENCE_RECOVERIES = {
  'missing-fence': row(
    'missing-wrapper',
    'the calls after {open} go in a {fence} fence; read without it',
  ),
  'unclosed-fence': row(
    'missing-wrapper',
    "the calls' {fence} fence was not closed before {close}",
  ),
} as const satisfies Partial<Recoveries<RecoveryKind>>;

/** Thinking the input ends in: every dialect reads every family's thinking tags. */
export const THINKING_RECOVERIES = {
  'unclosed-thinking': row(
    'unclosed-thinking',
    'thinking was not closed with {close} before the input ended',
  ),
} as const satisfies Partial<Recoveries<RecoveryKind>>;

/** A form that is another's call without the wrapper the family writes: `message` says which. */
export const missingWrapper = (message: string): Recovery => row('missing-wrapper', message);

/** A declaration's own row: `code` and its words. */
export const recoveryRow = row;
