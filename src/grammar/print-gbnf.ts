import type { Expr, Grammar } from './model.js';

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

function print(expr: Expr, nested: boolean): string {
  switch (expr.kind) {
    case 'lit':
      return `"${Array.from(expr.text, (c) => escapeChar(c.codePointAt(0) as number, false)).join('')}"`;
    case 'class': {
      const body = expr.ranges
        .map(([a, b]) =>
          a === b ? escapeChar(a, true) : `${escapeChar(a, true)}-${escapeChar(b, true)}`,
        )
        .join('');
      return `[${expr.negated ? '^' : ''}${body}]`;
    }
    case 'ref':
      return expr.name;
    case 'seq': {
      const text = expr.items.map((e) => print(e, true)).join(' ');
      return nested ? `(${text})` : text;
    }
    case 'alt': {
      const text = expr.items.map((e) => print(e, false)).join(' | ');
      return nested ? `(${text})` : text;
    }
    case 'rep': {
      const inner = print(expr.item, true);
      const { min, max } = expr;
      if (min === 0 && max === 1) return `${inner}?`;
      if (min === 0 && max === null) return `${inner}*`;
      if (min === 1 && max === null) return `${inner}+`;
      // llama.cpp expands x{m,n} itself; writing n copies of x? would blow up its stack.
      return `${inner}{${min},${max ?? ''}}`;
    }
  }
}

/** The grammar in llama.cpp's GBNF: `root` is the start rule. */
export function printGbnf(grammar: Grammar): string {
  const lines = grammar.rules.map(
    ([name, expr]) => `${name === grammar.root ? 'root' : name} ::= ${print(expr, false)}`,
  );
  return `${lines.join('\n')}\n`;
}
