import type { Expr, Grammar } from './model.js';

const name = (rule: string) => rule.replaceAll('-', '_');

function classBody(expr: Extract<Expr, { kind: 'class' }>): string {
  const one = (code: number) => {
    if (code === 0x0a) return '\\n';
    if (code === 0x0d) return '\\r';
    if (code === 0x09) return '\\t';
    const c = String.fromCodePoint(code);
    return /[\]\\^\-[/]/.test(c) ? `\\${c}` : c;
  };
  return expr.ranges.map(([a, b]) => (a === b ? one(a) : `${one(a)}-${one(b)}`)).join('');
}

function print(expr: Expr, nested: boolean): string {
  switch (expr.kind) {
    case 'lit':
      return JSON.stringify(expr.text);
    case 'class':
      return `/[${expr.negated ? '^' : ''}${classBody(expr)}]/`;
    case 'ref':
      return name(expr.name);
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
      if (max === null) return `${inner} ~ ${min}..${min + 1000}`;
      return `${inner} ~ ${min}..${max}`;
    }
  }
}

/** The grammar in Lark (vLLM / xgrammar): `start` is the start rule. */
export function printLark(grammar: Grammar): string {
  const lines = grammar.rules.map(
    ([rule, expr]) => `${rule === grammar.root ? 'start' : name(rule)}: ${print(expr, false)}`,
  );
  return `${lines.join('\n')}\n`;
}
