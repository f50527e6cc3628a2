import type { ParseWarningCode } from './events.js';

/**
 * Every recovery the engine can make, each with the values its message may name (`{ending}` in
 * a template): the engine supplies these values, a family's declaration the words. Reading a
 * mistake as meant is a recovery; each one emits the warning its declaration's row names.
 */
export const RECOVERY_VALUES = {
  // Markup: a call's children, its elements and its closes.
  'stray-in-opening': [],
  // Filled in where the family declares its openings: which tag's name was quoted.
  'quoted-name': ['tag'],
  'escaped-text': [],
  'unclosed-value': ['ending'],
  'unclosed-element': ['name'],
  'unclosed-call': ['ending'],
  'unclosed-block': ['close', 'open'],
  'unclosed-arguments': ['container', 'close'],
  'duplicate-parameter-listed': ['key'],
  'duplicate-parameter-last': ['key'],
  'duplicate-field': ['field'],
  'argument-outside-arguments': ['name', 'container'],
  'mismatched-call-close': ['name', 'close'],
  'mismatched-arguments-close': ['name', 'container'],
  'stray-close': ['name'],
  'deprecated-json-form': ['start'],
  // The end of the input.
  'unclosed-block-at-end': ['close'],
  'unclosed-call-at-end': ['close'],
  'unclosed-thinking': ['close'],
  // A body of calls: wrappers and fences.
  // Filled in where the family declares the form: what it was written in instead.
  'missing-wrapper': ['instead'],
  'missing-fence': ['open', 'fence'],
  'unclosed-fence': ['fence', 'close'],
  // JSON and Python values: what strict JSON rejects and the writer meant, read as meant.
  'raw-control-in-string': [],
  'unescaped-quote': [],
  'single-quoted-string': [],
  'escaped-single-quote': [],
  'invalid-escape': [],
  'brackets-left-open': ['count'],
  'trailing-comma': [],
  'unquoted-key': [],
  'mismatched-bracket': ['bracket'],
  'missing-comma': [],
  'loose-number': ['number'],
  'python-literal': ['word'],
  comment: [],
  'inexact-number': ['number'],
  'duplicate-argument': ['key'],
  'string-encoded-arguments': [],
  'repaired-json-in-string': ['repair'],
} as const satisfies Record<string, readonly string[]>;

export type RecoveryKind = keyof typeof RECOVERY_VALUES;

/** What a value's reader recovers from itself: JSON repaired (the first only), a number kept. */
export const VALUE_REPAIR_KINDS = [
  'raw-control-in-string',
  'unescaped-quote',
  'single-quoted-string',
  'escaped-single-quote',
  'invalid-escape',
  'brackets-left-open',
  'trailing-comma',
  'unquoted-key',
  'mismatched-bracket',
  'missing-comma',
  'loose-number',
  'python-literal',
  'comment',
  'inexact-number',
] as const satisfies readonly RecoveryKind[];
export type ValueRepairKind = (typeof VALUE_REPAIR_KINDS)[number];

/** The values a kind's message names, by name. */
export type RecoveryValues<K extends RecoveryKind> = Record<
  (typeof RECOVERY_VALUES)[K][number],
  string
>;

/**
 * One row of a family's recoveries: the warning it emits and its message, a template whose
 * `{name}`s are the kind's values (RECOVERY_VALUES).
 */
export interface Recovery {
  readonly code: ParseWarningCode;
  readonly message: string;
}

/** A declaration's rows, one per kind it recovers from. */
export type Recoveries<K extends RecoveryKind> = Readonly<Record<K, Recovery>>;

const PLACEHOLDER = /\{([a-z]+)\}/g;

/** The message of `row` with its values filled in (a name no value has stays as written). */
export function recoveryMessage(row: Recovery, values?: Readonly<Record<string, string>>): string {
  if (values === undefined) return row.message;
  return row.message.replace(PLACEHOLDER, (whole, name: string) =>
    Object.hasOwn(values, name) ? values[name] : whole,
  );
}

/** The names a template fills in, in order. */
export function placeholdersOf(message: string): string[] {
  return [...message.matchAll(PLACEHOLDER)].map((match) => match[1]);
}

/** `row` with some of its values filled in where it is declared (a per-tag message). */
export const recoveryWith = (
  row: Recovery,
  values: Readonly<Record<string, string>>,
): Recovery => ({
  code: row.code,
  message: recoveryMessage(row, values),
});

/**
 * The rows of `kinds` from a declaration's `rows`, checked once as its reader is built: a
 * declaration that lacks one is a mistake of the code, told at once (never in reading text).
 */
export function requireRows<K extends RecoveryKind>(
  rows: Partial<Recoveries<RecoveryKind>>,
  kinds: readonly K[],
  declaration: string,
): Recoveries<K> {
  // Readers are built per block: a declaration's rows are checked once for each list of kinds.
  let lists = checked.get(rows);
  if (lists?.has(kinds) !== true) {
    for (const kind of kinds)
      if (rows[kind] === undefined)
        throw new Error(`the ${declaration} declaration has no "${kind}" recovery row`);
    if (lists === undefined) {
      lists = new Set();
      checked.set(rows, lists);
    }
    lists.add(kinds);
  }
  return rows as Recoveries<K>;
}

const checked = new WeakMap<object, Set<readonly RecoveryKind[]>>();
