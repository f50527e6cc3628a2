import { type Expr, type Grammar, lit, ref } from './model.js';

const ruleName = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '') || 'x';

/** Rules under unique names (lowercase letters, digits, `-`), `root` first. */
export function createRules() {
  const rules: Array<[string, Expr]> = [['root', lit('')]];
  const names = new Set(['root']);
  const shared = new Map<string, Expr>();
  return {
    /** A new rule named after `wanted` (made unique): a reference to it. */
    define(wanted: string, expr: Expr): Expr {
      let name = ruleName(wanted);
      for (let n = 2; names.has(name); n++) name = `${ruleName(wanted)}-${n}`;
      names.add(name);
      rules.push([name, expr]);
      return ref(name);
    },
    /** A rule under exactly this name (a family of rules that refer to each other by name). */
    defineExactly(name: string, expr: Expr): void {
      if (names.has(name)) throw new Error(`grammar: rule ${name} defined twice`);
      names.add(name);
      rules.push([name, expr]);
    },
    /** The rule named `name`, defined by `build` the first time it is asked for. */
    once(name: string, build: () => Expr): Expr {
      let known = shared.get(name);
      if (known === undefined) {
        known = this.define(name, build());
        shared.set(name, known);
      }
      return known;
    },
    grammar(root: Expr): Grammar {
      rules[0] = ['root', root];
      return { root: 'root', rules };
    },
  };
}

export type Rules = ReturnType<typeof createRules>;
