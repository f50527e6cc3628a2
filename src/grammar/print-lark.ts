import type { Grammar } from './model.js';
import { type Notation, printExpr } from './print-expr.js';

const ruleName = (rule: string) => rule.replaceAll('-', '_');

function classChar(code: number): string {
  if (code === 0x0a) return '\\n';
  if (code === 0x0d) return '\\r';
  if (code === 0x09) return '\\t';
  // Other control characters (and the line and paragraph separators) as escapes: written
  // raw, they would stand in the grammar file as they are.
  if (code < 0x20 || code === 0x7f || code === 0x2028 || code === 0x2029)
    return code < 0x100
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  const c = String.fromCodePoint(code);
  return /[\]\\^\-[/]/.test(c) ? `\\${c}` : c;
}

const lark: Notation = {
  literal: (text) => JSON.stringify(text),
  charClass: (expr) =>
    `/[${expr.negated ? '^' : ''}${expr.ranges.map(([a, b]) => (a === b ? classChar(a) : `${classChar(a)}-${classChar(b)}`)).join('')}]/`,
  rule: ruleName,
  // Lark has no unbounded `~ m..`: a generous upper bound stands in.
  bounded: (inner, min, max) => `${inner} ~ ${min}..${max ?? min + 1000}`,
};

/** The grammar in Lark (vLLM / xgrammar): `start` is the start rule. */
export function printLark(grammar: Grammar): string {
  const lines = grammar.rules.map(
    ([rule, expr]) =>
      `${rule === grammar.root ? 'start' : ruleName(rule)}: ${printExpr(expr, lark)}`,
  );
  return `${lines.join('\n')}\n`;
}
