import type { Expr, Grammar } from './model.js';

/**
 * Whether `text` is in the language of `grammar` (the whole text, from the root rule). A
 * memoized set-of-positions interpreter: fine for test-sized inputs, exact for any grammar
 * without left recursion (which GBNF forbids too).
 */
export function recognize(grammar: Grammar, text: string): boolean {
  const rules = new Map(grammar.rules);
  const points = Array.from(text, (c) => c.codePointAt(0) as number);
  const memo = new Map<string, Set<number>>();

  function match(expr: Expr, at: number): Set<number> {
    switch (expr.kind) {
      case 'lit': {
        const want = Array.from(expr.text, (c) => c.codePointAt(0) as number);
        for (let k = 0; k < want.length; k++) if (points[at + k] !== want[k]) return new Set();
        return new Set([at + want.length]);
      }
      case 'class': {
        const c = points[at];
        if (c === undefined) return new Set();
        const inside = expr.ranges.some(([a, b]) => c >= a && c <= b);
        return inside !== expr.negated ? new Set([at + 1]) : new Set();
      }
      case 'ref': {
        const key = `${expr.name}@${at}`;
        const known = memo.get(key);
        if (known !== undefined) return known;
        const body = rules.get(expr.name);
        if (body === undefined) throw new Error(`grammar: no rule ${expr.name}`);
        memo.set(key, new Set());
        const result = match(body, at);
        memo.set(key, result);
        return result;
      }
      case 'seq': {
        let ends = new Set([at]);
        for (const item of expr.items) {
          const next = new Set<number>();
          for (const p of ends) for (const q of match(item, p)) next.add(q);
          ends = next;
          if (ends.size === 0) break;
        }
        return ends;
      }
      case 'alt': {
        const ends = new Set<number>();
        for (const item of expr.items) for (const q of match(item, at)) ends.add(q);
        return ends;
      }
      case 'rep': {
        const ends = new Set<number>();
        let frontier = new Set([at]);
        const seen = new Set<number>();
        for (let count = 0; frontier.size > 0; count++) {
          if (count >= expr.min) for (const p of frontier) ends.add(p);
          if (expr.max !== null && count >= expr.max) break;
          const next = new Set<number>();
          // Once past the minimum a position needs reaching once; below it, counts still differ.
          const dedupe = count + 1 >= expr.min;
          for (const p of frontier)
            for (const q of match(expr.item, p)) if (q > p && !(dedupe && seen.has(q))) next.add(q);
          if (dedupe) for (const q of next) seen.add(q);
          frontier = next;
        }
        return ends;
      }
    }
  }

  return match({ kind: 'ref', name: grammar.root }, 0).has(points.length);
}
