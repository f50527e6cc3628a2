import type { ValueText } from '../protocol/markup/value-text.js';
import type { JsonSchema } from '../tools/index.js';
import { freeText } from './free-text.js';
import { literalValues } from './literal-values.js';
import { alt, type Expr, lit, mark } from './model.js';
import type { Rules } from './rules.js';
import { fixedValues, integerExpr, numberExpr, typesOf } from './schema-types.js';

const isBlank = (c: string | undefined) => c !== undefined && /\s/u.test(c);

/**
 * Argument values of the families that write them as element text (Qwen3-Coder, Anthropic's
 * `<invoke>`, GLM, Seed-OSS, MiniMax, Cline): strings as written, without the form's own tags
 * (`forbid`) or a carriage return (which the readers' newline rules would take); numbers,
 * booleans and null as JSON writes them; objects and lists as JSON text (with `<` escaped, so
 * that no tag stands in it). The readers give text, and dispatch's coercion types it by the
 * schema. A value the reader trims is written without blanks at its ends; a nullable string
 * is never empty or `null` (coercion would read null).
 */
export function textValues(rules: Rules) {
  const json = literalValues(rules, { syntax: 'json', forbid: '<' });
  const texts = new Map<string, Expr>();
  /** Text without `forbid`, trimmed or not, never empty or `null` when nullable. */
  const raw = (forbid: readonly string[], trimmed: boolean, nullable: boolean) => {
    const words = [...new Set([...forbid, '\r'])].sort();
    const key = JSON.stringify([words, trimmed, nullable]);
    let known = texts.get(key);
    if (known === undefined) {
      const name = `text-${texts.size}`;
      const text = freeText(
        rules,
        {
          anywhere: words,
          lineStart: [],
          trimmed: trimmed || nullable,
          notExactly: nullable ? ['', 'null'] : [],
        },
        name,
      ).midLine;
      known = mark({ type: 'value', syntax: 'raw', as: 'string' }, text);
      texts.set(key, known);
    }
    return known;
  };
  const constant = (value: string | number | boolean | null, written: string) =>
    mark({ type: 'const', value }, lit(written));
  const writable = (text: string, mode: ValueText, forbid: readonly string[]) =>
    !text.includes('\r') &&
    !forbid.some((w) => text.includes(w)) &&
    !(mode === 'trim' && (isBlank(text[0]) || isBlank(text.at(-1))));

  /** A value of `schema` as the element's text, read in `mode`, without `forbid`. */
  function valueFor(
    schema: JsonSchema | undefined,
    context: string,
    mode: ValueText,
    forbid: readonly string[],
  ): Expr {
    const fixed = fixedValues(schema, context);
    const { types, nullable } = typesOf(schema);
    if (fixed !== undefined) {
      const options = fixed
        .map((v) =>
          typeof v !== 'string'
            ? constant(v as number | boolean | null, JSON.stringify(v))
            : writable(v, mode, forbid)
              ? constant(v, v)
              : undefined,
        )
        .filter((e): e is Expr => e !== undefined);
      return rules.define(`${context}-enum`, alt(...options));
    }
    const trimmed = mode === 'trim';
    let value: Expr;
    switch (types[0]) {
      case 'integer':
        value = mark(
          { type: 'value', syntax: 'raw', as: 'number' },
          rules.once('integer', integerExpr),
        );
        break;
      case 'number':
        value = mark(
          { type: 'value', syntax: 'raw', as: 'number' },
          rules.once('number', numberExpr),
        );
        break;
      case 'boolean':
        value = alt(constant(true, 'true'), constant(false, 'false'));
        break;
      case 'object':
      case 'array':
        value = json.valueFor(schema, context);
        break;
      case undefined:
        return nullable ? constant(null, 'null') : raw(forbid, trimmed, false);
      default:
        value = raw(forbid, trimmed, nullable);
    }
    return nullable ? alt(constant(null, 'null'), value) : value;
  }

  return { valueFor };
}
