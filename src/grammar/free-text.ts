import { alt, type Expr, lit, seq } from './model.js';
import type { Rules } from './rules.js';

/** Text a grammar lets a model write around calls: what it may not hold. */
export interface TextLimits {
  /** Never anywhere in the text (a family's special-token opening, `</think>`). */
  anywhere: readonly string[];
  /** Never at a line start, after spaces and tabs (`<tool>`, `[`, a fence, `<think>`). */
  lineStart: readonly string[];
  /** No blank (what JavaScript's `trim` removes) at either end: a value its reader trims. */
  trimmed?: boolean;
  /** Texts it may not be as a whole (`''`, `null`: what a nullable value reads as null). */
  notExactly?: readonly string[];
}

/** What JavaScript's `trim` removes. */
export const BLANKS = '\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff';

const blankSet = (() => {
  const out = new Set<string>();
  for (const [a, b] of [...BLANKS.matchAll(/(.)(?:-(.))?/gsu)].map((m) => [m[1], m[2] ?? m[1]]))
    for (let c = a.codePointAt(0) as number; c <= (b.codePointAt(0) as number); c++)
      out.add(String.fromCodePoint(c));
  return out;
})();

interface State {
  /** At a line start (after its spaces and tabs, if any). */
  lineStart: boolean;
  /** Prefixes of forbidden words the text ends with, as [word index, length]. */
  partial: Array<[number, number]>;
  /** With `trimmed`: something but blanks was written; the last character was a blank. */
  started: boolean;
  lastBlank: boolean;
  /** The whole text so far while it begins one of `notExactly` (else null). */
  soFar: string | null;
}

const BLANK = new Set([' ', '\t']);

/**
 * Rules for text without the forbidden words: a finite automaton (line start, which
 * forbidden words the text so far ends with a part of, and for values whether it may end
 * here) written as one right-recursive rule per state, each character class leading to the
 * next state. Right recursion is a tail call for llama.cpp's grammar stacks, so long text
 * costs no depth. Two ways in: `lineStart` for text that begins a line (a reply's start),
 * `midLine` for text after something on its line (a call's close, a value's opening tag).
 */
export function freeText(
  rules: Rules,
  limits: TextLimits,
  name: string,
): { lineStart: Expr; midLine: Expr } {
  const words = [
    ...limits.anywhere.map((w) => ({ text: Array.from(w), lineStart: false })),
    ...limits.lineStart.map((w) => ({ text: Array.from(w), lineStart: true })),
  ];
  const trimmed = limits.trimmed ?? false;
  const whole = limits.notExactly ?? [];
  const alphabet = [
    ...new Set(
      words
        .flatMap((w) => w.text)
        .concat(
          ['\n', ' ', '\t'],
          whole.flatMap((w) => Array.from(w)),
          trimmed ? [...blankSet] : [],
        ),
    ),
  ];
  const keyOf = (s: State) =>
    `${s.lineStart ? 'L' : 'M'}${s.started ? 'S' : ''}${s.lastBlank ? 'B' : ''}${JSON.stringify(s.soFar)}${s.partial
      .map(([w, n]) => `${w}.${n}`)
      .sort()
      .join(',')}`;
  const mayEnd = (s: State) =>
    (!trimmed || !s.lastBlank) && !(s.soFar !== null && whole.includes(s.soFar));

  /** The state after `c`, or undefined when `c` completes a forbidden word. */
  function next(state: State, c: string | null): State | undefined {
    const partial: Array<[number, number]> = [];
    for (const [w, n] of state.partial) {
      if (words[w].text[n] !== c) continue;
      if (n + 1 === words[w].text.length) return undefined;
      partial.push([w, n + 1]);
    }
    for (let w = 0; w < words.length; w++) {
      if (words[w].lineStart && !state.lineStart) continue;
      if (words[w].text[0] !== c) continue;
      if (words[w].text.length === 1) return undefined;
      partial.push([w, 1]);
    }
    const lineStart = c === '\n' || (state.lineStart && c !== null && BLANK.has(c));
    const blank = c !== null && blankSet.has(c);
    // A trimmed text does not begin with a blank.
    if (trimmed && blank && !state.started) return undefined;
    const soFar = state.soFar === null || c === null ? null : state.soFar + c;
    return {
      lineStart,
      partial,
      // Tracked only where they matter, so that other texts keep their fewer states.
      started: trimmed && (state.started || !blank),
      lastBlank: trimmed && blank,
      soFar: soFar !== null && whole.some((w) => w.startsWith(soFar)) ? soFar : null,
    };
  }

  const states = new Map<string, { state: State; rule: string }>();
  const queue: State[] = [];
  const ruleOf = (s: State): string => {
    const key = keyOf(s);
    let known = states.get(key);
    if (known === undefined) {
      known = { state: s, rule: `${name}-${states.size}` };
      states.set(key, known);
      queue.push(s);
    }
    return known.rule;
  };
  const first = {
    partial: [],
    started: false,
    lastBlank: false,
    soFar: whole.length > 0 ? '' : null,
  };
  const entries = {
    lineStart: ruleOf({ lineStart: true, ...first }),
    midLine: ruleOf({ lineStart: false, ...first }),
  };
  const bodies = new Map<string, Expr>();
  while (queue.length > 0) {
    const state = queue.shift() as State;
    const byTarget = new Map<string, number[]>();
    const add = (target: string, code: number) => {
      const list = byTarget.get(target) ?? [];
      list.push(code);
      byTarget.set(target, list);
    };
    for (const c of alphabet) {
      const after = next(state, c);
      if (after !== undefined) add(ruleOf(after), c.codePointAt(0) as number);
    }
    const other = next(state, null) as State;
    const options: Expr[] = mayEnd(state) ? [lit('')] : [];
    for (const [target, codes] of byTarget)
      options.push(seq(charClass(codes, false), { kind: 'ref', name: target }));
    const excluded = alphabet.map((c) => c.codePointAt(0) as number);
    options.push(seq(charClass(excluded, true), { kind: 'ref', name: ruleOf(other) }));
    bodies.set(states.get(keyOf(state))?.rule as string, alt(...options));
  }
  for (const { rule } of states.values()) rules.defineExactly(rule, bodies.get(rule) as Expr);
  return {
    lineStart: { kind: 'ref', name: entries.lineStart },
    midLine: { kind: 'ref', name: entries.midLine },
  };
}

function charClass(codes: number[], negated: boolean): Expr {
  const sorted = [...codes].sort((a, b) => a - b);
  const ranges: Array<[number, number]> = [];
  for (const c of sorted) {
    const last = ranges[ranges.length - 1];
    if (last !== undefined && last[1] + 1 === c) last[1] = c;
    else ranges.push([c, c]);
  }
  return { kind: 'class', ranges, negated };
}
