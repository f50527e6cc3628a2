import { alt, type Expr, lit, opt, seq } from './model.js';
import type { Rules } from './rules.js';

/** One property as written (key and value), and whether the schema requires it. */
export interface Member {
  expr: Expr;
  required: boolean;
}

/**
 * An object's properties in schema order: required ones present, optional ones at most once,
 * `separator` between two written ones. Built from the end: from member i on, each written
 * after a separator (`after-i`); the first written member decides which may follow, so the
 * grammar is unambiguous. Empty when every member is optional and none is written.
 */
export function orderedMembers(
  rules: Rules,
  context: string,
  members: readonly Member[],
  separator: Expr,
): Expr {
  const tails: Expr[] = [];
  tails[members.length] = lit('');
  for (let i = members.length - 1; i >= 0; i--) {
    const written = seq(separator, members[i].expr);
    tails[i] = rules.define(
      `${context}-after-${i}`,
      seq(members[i].required ? written : opt(written), tails[i + 1]),
    );
  }
  let heads: Expr = lit('');
  for (let i = members.length - 1; i >= 0; i--) {
    const first = seq(members[i].expr, tails[i + 1]);
    heads = members[i].required ? first : alt(first, heads);
  }
  return rules.define(`${context}-members`, heads);
}
