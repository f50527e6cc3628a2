import type { JsonValue } from '../protocol/index.js';

/**
 * How the text a marked part spans reads as a value: `xml` is the `<tool>` protocol's element
 * text (entities, CDATA), `raw` text as written, `json`, `python` literals, Gemma's `<|"|>`.
 */
export type ValueSyntax = 'xml' | 'raw' | 'json' | 'python' | 'gemma';

/**
 * What a part of a grammar means for the calls a text holds: a call, an object and its keys, a
 * list and its items, a written value (read as its syntax says), or a fixed value (an enum's).
 */
export type Mark =
  | { type: 'call'; serverName: string; toolName: string }
  | { type: 'object' }
  | { type: 'key'; key: string }
  /** A member whose key is written too (a map): its first marked part is the key. */
  | { type: 'entry' }
  | { type: 'array' }
  | { type: 'item' }
  | { type: 'value'; syntax: ValueSyntax; as: 'string' | 'number' | 'boolean' | 'null' }
  | { type: 'const'; value: JsonValue };

/**
 * A small grammar model: rules of literals, character classes, sequences, alternatives and
 * bounded or unbounded repetition. The printers write it as GBNF or Lark; the recognizer runs
 * it, so tests check the very grammar that is handed to the decoder. Marks say what a part
 * means (they print as nothing): the tests read the calls a sampled text holds through them.
 */
export type Expr =
  | { kind: 'lit'; text: string }
  /** Code point ranges, or everything but them when `negated`. */
  | { kind: 'class'; ranges: Array<[number, number]>; negated: boolean }
  | { kind: 'ref'; name: string }
  | { kind: 'seq'; items: Expr[] }
  | { kind: 'alt'; items: Expr[] }
  | { kind: 'rep'; item: Expr; min: number; max: number | null }
  | { kind: 'mark'; mark: Mark; item: Expr };

export interface Grammar {
  root: string;
  /** In definition order; names are lowercase letters, digits and `-`. */
  rules: Array<[string, Expr]>;
}

export const lit = (text: string): Expr => ({ kind: 'lit', text });
export const ref = (name: string): Expr => ({ kind: 'ref', name });
const isEmpty = (e: Expr) => e.kind === 'lit' && e.text === '';
/** A sequence; empty literals in it are dropped. */
export const seq = (...items: Expr[]): Expr => {
  const kept = items.filter((e) => !isEmpty(e));
  return kept.length === 0 ? lit('') : kept.length === 1 ? kept[0] : { kind: 'seq', items: kept };
};
export const alt = (...items: Expr[]): Expr =>
  items.length === 1 ? items[0] : { kind: 'alt', items };
export const rep = (item: Expr, min: number, max: number | null): Expr => ({
  kind: 'rep',
  item,
  min,
  max,
});
export const mark = (m: Mark, item: Expr): Expr => ({ kind: 'mark', mark: m, item });
export const opt = (item: Expr): Expr => rep(item, 0, 1);
export const star = (item: Expr): Expr => rep(item, 0, null);
export const plus = (item: Expr): Expr => rep(item, 1, null);

/** A class from a string of characters and `a-z` ranges, e.g. `chars('0-9')`. */
export function chars(spec: string, negated = false): Expr {
  const points = Array.from(spec, (c) => c.codePointAt(0) as number);
  const ranges: Array<[number, number]> = [];
  for (let i = 0; i < points.length; i++) {
    if (points[i + 1] === 0x2d && i + 2 < points.length) {
      ranges.push([points[i], points[i + 2]]);
      i += 2;
    } else ranges.push([points[i], points[i]]);
  }
  return { kind: 'class', ranges, negated };
}

/** Every literal text a grammar's rules hold. */
export function grammarLiterals(grammar: Grammar): Set<string> {
  const found = new Set<string>();
  const walk = (expr: Expr): void => {
    if (expr.kind === 'lit') found.add(expr.text);
    else if (expr.kind === 'seq' || expr.kind === 'alt') for (const item of expr.items) walk(item);
    else if (expr.kind === 'rep' || expr.kind === 'mark') walk(expr.item);
  };
  for (const [, expr] of grammar.rules) walk(expr);
  return found;
}
