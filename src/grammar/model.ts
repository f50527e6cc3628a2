/**
 * A small grammar model: rules of literals, character classes, sequences, alternatives and
 * bounded or unbounded repetition. The printers write it as GBNF or Lark; the recognizer runs
 * it, so tests check the very grammar that is handed to the decoder.
 */
export type Expr =
  | { kind: 'lit'; text: string }
  /** Code point ranges, or everything but them when `negated`. */
  | { kind: 'class'; ranges: Array<[number, number]>; negated: boolean }
  | { kind: 'ref'; name: string }
  | { kind: 'seq'; items: Expr[] }
  | { kind: 'alt'; items: Expr[] }
  | { kind: 'rep'; item: Expr; min: number; max: number | null };

export interface Grammar {
  root: string;
  /** In definition order; names are lowercase letters, digits and `-`. */
  rules: Array<[string, Expr]>;
}

export const lit = (text: string): Expr => ({ kind: 'lit', text });
export const ref = (name: string): Expr => ({ kind: 'ref', name });
export const seq = (...items: Expr[]): Expr =>
  items.length === 1 ? items[0] : { kind: 'seq', items };
export const alt = (...items: Expr[]): Expr =>
  items.length === 1 ? items[0] : { kind: 'alt', items };
export const rep = (item: Expr, min: number, max: number | null): Expr => ({
  kind: 'rep',
  item,
  min,
  max,
});
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
