import type { Expr, Grammar, Mark } from './model.js';

/** A marked part of a text as a grammar derives it, with the marked parts inside it. */
export interface MarkedSpan {
  mark: Mark;
  text: string;
  children: MarkedSpan[];
}

/**
 * Memoized sets of end positions per expression and start: fine for test-sized inputs, exact
 * for any grammar without left recursion (which GBNF forbids too).
 */
function createMatcher(grammar: Grammar, points: number[]) {
  const rules = new Map(grammar.rules);
  const memo = new Map<Expr, Map<number, Set<number>>>();
  const none = new Set<number>();

  const body = (name: string): Expr => {
    const expr = rules.get(name);
    if (expr === undefined) throw new Error(`grammar: no rule ${name}`);
    return expr;
  };

  /** Where `expr` can end when it starts at `at`. */
  function ends(expr: Expr, at: number): Set<number> {
    if (expr.kind === 'lit') {
      const want = Array.from(expr.text, (c) => c.codePointAt(0) as number);
      for (let k = 0; k < want.length; k++) if (points[at + k] !== want[k]) return none;
      return new Set([at + want.length]);
    }
    if (expr.kind === 'class') {
      const c = points[at];
      if (c === undefined) return none;
      const inside = expr.ranges.some(([a, b]) => c >= a && c <= b);
      return inside !== expr.negated ? new Set([at + 1]) : none;
    }
    let byStart = memo.get(expr);
    if (byStart === undefined) {
      byStart = new Map();
      memo.set(expr, byStart);
    }
    const known = byStart.get(at);
    if (known !== undefined) return known;
    byStart.set(at, none); // a rule reached again at the same place (left recursion) matches nothing
    const result = compute(expr, at);
    byStart.set(at, result);
    return result;
  }

  function compute(expr: Expr, at: number): Set<number> {
    switch (expr.kind) {
      case 'ref':
        return ends(body(expr.name), at);
      case 'mark':
        return ends(expr.item, at);
      case 'seq': {
        let reached = new Set([at]);
        for (const item of expr.items) {
          const next = new Set<number>();
          for (const p of reached) for (const q of ends(item, p)) next.add(q);
          reached = next;
          if (reached.size === 0) break;
        }
        return reached;
      }
      case 'alt': {
        const out = new Set<number>();
        for (const item of expr.items) for (const q of ends(item, at)) out.add(q);
        return out;
      }
      case 'rep': {
        const out = new Set<number>();
        for (const level of repetitions(expr, at))
          if (level.count >= expr.min) for (const p of level.from.keys()) out.add(p);
        return out;
      }
      default:
        return ends(expr, at);
    }
  }

  /**
   * The positions a repetition reaches after each count, each with the position it came from.
   * Once past the minimum a position needs reaching once (the fewest repetitions leave the most
   * room under the maximum); below it, counts still differ.
   */
  function repetitions(expr: Extract<Expr, { kind: 'rep' }>, at: number) {
    const levels: Array<{ count: number; from: Map<number, number> }> = [
      { count: 0, from: new Map([[at, -1]]) },
    ];
    const seen = new Set<number>();
    for (let count = 0; expr.max === null || count < expr.max; count++) {
      const frontier = levels[levels.length - 1].from;
      const next = new Map<number, number>();
      const dedupe = count + 1 >= expr.min;
      for (const p of frontier.keys())
        for (const q of ends(expr.item, p))
          if (q > p && !next.has(q) && !(dedupe && seen.has(q))) next.set(q, p);
      if (next.size === 0) break;
      if (dedupe) for (const q of next.keys()) seen.add(q);
      levels.push({ count: count + 1, from: next });
    }
    return levels;
  }

  /** One derivation of `expr` from `at` to `end` (which `ends` allows): its marked parts. */
  function derive(expr: Expr, at: number, end: number, out: MarkedSpan[]): void {
    switch (expr.kind) {
      case 'lit':
      case 'class':
        return;
      case 'ref':
        derive(body(expr.name), at, end, out);
        return;
      case 'mark': {
        const span: MarkedSpan = {
          mark: expr.mark,
          text: String.fromCodePoint(...points.slice(at, end)),
          children: [],
        };
        derive(expr.item, at, end, span.children);
        out.push(span);
        return;
      }
      case 'alt': {
        const item = expr.items.find((e) => ends(e, at).has(end));
        if (item !== undefined) derive(item, at, end, out);
        return;
      }
      case 'seq': {
        const reached: Array<Set<number>> = [new Set([at])];
        for (const item of expr.items) {
          const next = new Set<number>();
          for (const p of reached[reached.length - 1]) for (const q of ends(item, p)) next.add(q);
          reached.push(next);
        }
        const cuts = [end];
        for (let i = expr.items.length - 1; i > 0; i--) {
          const after = cuts[0];
          const cut = [...reached[i]].find((p) => ends(expr.items[i], p).has(after));
          cuts.unshift(cut as number);
        }
        cuts.unshift(at);
        for (const [i, item] of expr.items.entries()) derive(item, cuts[i], cuts[i + 1], out);
        return;
      }
      case 'rep': {
        const levels = repetitions(expr, at);
        let level = levels.findIndex((l) => l.count >= expr.min && l.from.has(end));
        const cuts = [end];
        for (let p = end; level > 0; level--) {
          p = levels[level].from.get(p) as number;
          cuts.unshift(p);
        }
        for (let i = 0; i + 1 < cuts.length; i++) derive(expr.item, cuts[i], cuts[i + 1], out);
        return;
      }
    }
  }

  return { ends, derive };
}

/** Whether `text` is in the language of `grammar` (the whole text, from the root rule). */
export function recognize(grammar: Grammar, text: string): boolean {
  const points = Array.from(text, (c) => c.codePointAt(0) as number);
  return createMatcher(grammar, points)
    .ends({ kind: 'ref', name: grammar.root }, 0)
    .has(points.length);
}

/**
 * The marked parts of `text` in one derivation from the root rule, or undefined when the text
 * is not in the grammar's language: what the grammar says the text means.
 */
export function readMarks(grammar: Grammar, text: string): MarkedSpan[] | undefined {
  const points = Array.from(text, (c) => c.codePointAt(0) as number);
  const matcher = createMatcher(grammar, points);
  const root: Expr = { kind: 'ref', name: grammar.root };
  if (!matcher.ends(root, 0).has(points.length)) return undefined;
  const out: MarkedSpan[] = [];
  matcher.derive(root, 0, points.length, out);
  return out;
}
