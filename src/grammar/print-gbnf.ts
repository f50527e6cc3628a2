import type { Grammar } from './model.js';
import { type Notation, printExpr } from './print-expr.js';

function escapeChar(code: number, inClass: boolean): string {
  if (code === 0x0a) return '\\n';
  if (code === 0x0d) return '\\r';
  if (code === 0x09) return '\\t';
  if (code === 0x5c) return '\\\\';
  if (!inClass && code === 0x22) return '\\"';
  if (inClass && (code === 0x5d || code === 0x5b || code === 0x5e || code === 0x2d))
    return `\\${String.fromCodePoint(code)}`;
  if (code < 0x20 || code === 0x7f) return `\\x${code.toString(16).padStart(2, '0')}`;
  return String.fromCodePoint(code);
}

const gbnf: Notation = {
  literal: (text) =>
    `"${Array.from(text, (c) => escapeChar(c.codePointAt(0) as number, false)).join('')}"`,
  charClass: (expr) =>
    `[${expr.negated ? '^' : ''}${expr.ranges
      .map(([a, b]) =>
        a === b ? escapeChar(a, true) : `${escapeChar(a, true)}-${escapeChar(b, true)}`,
      )
      .join('')}]`,
  rule: (name) => name,
  // llama.cpp expands x{m,n} itself; writing n copies of x? would blow up its stack.
  bounded: (inner, min, max) => `${inner}{${min},${max ?? ''}}`,
};

/** The grammar in llama.cpp's GBNF: `root` is the start rule. */
export function printGbnf(grammar: Grammar): string {
  const lines = grammar.rules.map(
    ([name, expr]) => `${name === grammar.root ? 'root' : name} ::= ${printExpr(expr, gbnf)}`,
  );
  return `${lines.join('\n')}\n`;
}
