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

  /**
   * Rules of a finite automaton (free text: see free-text.ts): each alternative is the empty
   * text or one character class and a rule of the automaton. Its ends are found by running it
   * forward, without recursion, however long the text.
   */
  const automaton = automatonRules(grammar);
  const inClass = (expr: Extract<Expr, { kind: 'class' }>, c: number | undefined) =>
    c !== undefined && expr.ranges.some(([a, b]) => c >= a && c <= b) !== expr.negated;

  function runAutomaton(start: string, at: number): Set<number> {
    const out = new Set<number>();
    let states = new Set([start]);
    for (let p = at; states.size > 0; p++) {
      const next = new Set<string>();
      for (const state of states)
        for (const step of automaton.get(state) as AutomatonStep[]) {
          if (step === null) out.add(p);
          else if (inClass(step.on, points[p])) next.add(step.to);
        }
      states = next;
    }
    return out.size === 0 ? none : out;
  }

  /** Where `expr` can end when it starts at `at`. */
  function ends(expr: Expr, at: number): Set<number> {
    if (expr.kind === 'ref' && automaton.has(expr.name)) return runAutomaton(expr.name, at);
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
    // An automaton's text holds no marks: nothing to descend into.
    if (expr.kind === 'ref' && automaton.has(expr.name)) return;
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
          text: textOf(points, at, end),
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

/** The text of code points `at` to `end` (a spread of a long slice would overflow the stack). */
function textOf(points: readonly number[], at: number, end: number): string {
  let out = '';
  for (let i = at; i < end; i += 4096)
    out += String.fromCodePoint(...points.slice(i, Math.min(end, i + 4096)));
  return out;
}

/** One way on from an automaton's state: a character class to the next state, or the end (null). */
type AutomatonStep = { on: Extract<Expr, { kind: 'class' }>; to: string } | null;

/**
 * The rules that are states of a finite automaton: alternatives of the empty text and of a
 * class followed by a reference to another such rule, and nothing else (a fixpoint: a rule
 * whose steps lead out of the automaton is not one).
 */
function automatonRules(grammar: Grammar): Map<string, AutomatonStep[]> {
  const candidates = new Map<string, AutomatonStep[]>();
  for (const [name, expr] of grammar.rules) {
    const items = expr.kind === 'alt' ? expr.items : [expr];
    const steps: AutomatonStep[] = [];
    for (const item of items) {
      if (item.kind === 'lit' && item.text === '') steps.push(null);
      else if (
        item.kind === 'seq' &&
        item.items.length === 2 &&
        item.items[0].kind === 'class' &&
        item.items[1].kind === 'ref'
      )
        steps.push({ on: item.items[0], to: item.items[1].name });
      else break;
    }
    if (steps.length === items.length) candidates.set(name, steps);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [name, steps] of candidates)
      if (steps.some((step) => step !== null && !candidates.has(step.to))) {
        candidates.delete(name);
        changed = true;
      }
  }
  return candidates;
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
