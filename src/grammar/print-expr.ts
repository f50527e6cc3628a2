import type { Expr } from './model.js';

/** What differs between grammar notations: leaves, rule names and bounded repetition. */
export interface Notation {
  literal(text: string): string;
  charClass(expr: Extract<Expr, { kind: 'class' }>): string;
  rule(name: string): string;
  /** `inner` repeated `min` to `max` times (unbounded when null), not one of ? * +. */
  bounded(inner: string, min: number, max: number | null): string;
}

/** Sequences, alternatives and the common repetitions print alike in GBNF and Lark. */
export function printExpr(expr: Expr, notation: Notation, nested = false): string {
  switch (expr.kind) {
    case 'lit':
      return notation.literal(expr.text);
    case 'class':
      return notation.charClass(expr);
    case 'ref':
      return notation.rule(expr.name);
    case 'seq': {
      const text = expr.items.map((e) => printExpr(e, notation, true)).join(' ');
      return nested ? `(${text})` : text;
    }
    case 'alt': {
      const text = expr.items.map((e) => printExpr(e, notation, false)).join(' | ');
      return nested ? `(${text})` : text;
    }
    case 'mark':
      return printExpr(expr.item, notation, nested);
    case 'rep': {
      const inner = printExpr(expr.item, notation, true);
      const { min, max } = expr;
      if (min === 0 && max === 1) return `${inner}?`;
      if (min === 0 && max === null) return `${inner}*`;
      if (min === 1 && max === null) return `${inner}+`;
      return notation.bounded(inner, min, max);
    }
  }
}
