import type { JsonValue } from '../protocol/index.js';
import type { JsonSchema } from '../tools/index.js';
import { freeText } from './free-text.js';
import { type Member, orderedMembers } from './members.js';
import { alt, chars, type Expr, lit, mark, opt, rep, seq, star } from './model.js';
import type { Rules } from './rules.js';
import { fixedValues, integerExpr, numberExpr, typesOf } from './schema-types.js';

/**
 * How a family writes literal values: JSON (most), Python literals, or strings between a quote
 * token (`gemma`: `quote`, and `tokens` that end a string or a call wherever they stand).
 * `forbid` lists characters a string may not hold as written in its surroundings (escapes
 * stand in for them where the syntax has escapes).
 */
export type LiteralStyle =
  | { syntax: 'json' | 'python'; forbid?: string }
  | { syntax: 'gemma'; quote: string; tokens: readonly string[]; forbid?: string };

/** How an object's members are written: braces and `"key": value`, or a call's `key=value`. */
export interface ObjectFrame {
  open: string;
  close: string;
  /** The text before a member's value, or undefined when the key cannot be written. */
  key(name: string): string | undefined;
  comma: string;
}

const hex = chars('0-9a-fA-F');
const gap = rep(chars(' \n'), 0, 2);

/** A string as JSON writes it, `\u` escapes for the characters its surroundings forbid. */
function jsonString(text: string, forbid: string): string {
  return JSON.stringify(text).replace(/[\s\S]/g, (c) =>
    forbid.includes(c) ? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}` : c,
  );
}

function pythonString(text: string): string | undefined {
  if (/[\\\n\r]/.test(text)) return JSON.stringify(text);
  return text.includes("'") ? (text.includes('"') ? undefined : `"${text}"`) : `'${text}'`;
}

/** Values in a literal syntax, read from a schema. */
export function literalValues(rules: Rules, style: LiteralStyle) {
  const forbid = style.forbid ?? '';
  const { syntax } = style;
  const words =
    syntax === 'python'
      ? { true: 'True', false: 'False', null: 'None' }
      : { true: 'true', false: 'false', null: 'null' };

  const stringLiteral = (): Expr => {
    if (style.syntax === 'gemma') {
      // Anything but the string's closing token and the call's tokens (which end the call
      // wherever they stand), and the characters `forbid` names.
      const { quote, tokens } = style;
      return rules.once('gemma-string', () =>
        seq(
          lit(quote),
          freeText(
            rules,
            { anywhere: [...tokens, ...Array.from(forbid)], lineStart: [] },
            'gemma-text',
          ).midLine,
          lit(quote),
        ),
      );
    }
    if (syntax === 'python') {
      const body = (quote: string) =>
        star(alt(chars(`${quote}\\\n\r${forbid}`, true), seq(lit('\\'), chars(`${quote}\\nt`))));
      return rules.once('python-string', () =>
        alt(seq(lit("'"), body("'"), lit("'")), seq(lit('"'), body('"'), lit('"'))),
      );
    }
    return rules.once(forbid === '' ? 'json-string' : 'json-string-escaped', () =>
      seq(
        lit('"'),
        star(
          alt(
            chars(`"\\\x00-\x1f${forbid}`, true),
            seq(lit('\\'), alt(chars('"\\/bfnrt'), seq(lit('u'), hex, hex, hex, hex))),
          ),
        ),
        lit('"'),
      ),
    );
  };

  /** A fixed value as this syntax writes it, or undefined when it cannot. */
  function literal(value: JsonValue): string | undefined {
    if (value === null) return words.null;
    if (value === true) return words.true;
    if (value === false) return words.false;
    if (typeof value === 'number') return JSON.stringify(value);
    if (typeof value !== 'string') return undefined;
    if (style.syntax === 'gemma')
      return value.includes(style.quote) ? undefined : `${style.quote}${value}${style.quote}`;
    if (syntax === 'python') return pythonString(value);
    return jsonString(value, forbid);
  }

  const leaf = (as: 'string' | 'number', expr: Expr) => mark({ type: 'value', syntax, as }, expr);
  const constant = (value: JsonValue) => {
    const text = literal(value);
    return text === undefined ? undefined : mark({ type: 'const', value }, lit(text));
  };
  const boolean = () => alt(constant(true) as Expr, constant(false) as Expr);

  /** Any value, nested at most `depth` deep: for schemas that do not say. */
  function anyValue(depth: number): Expr {
    return rules.once(`${syntax}-any-${depth}`, () => {
      const scalars = [
        leaf('string', stringLiteral()),
        leaf('number', numberExpr()),
        boolean(),
        constant(null) as Expr,
      ];
      if (depth === 0) return alt(...scalars);
      return alt(...scalars, listOf(anyValue(depth - 1)), mapOf(anyValue(depth - 1)));
    });
  }

  function listOf(item: Expr): Expr {
    const marked = mark({ type: 'item' }, item);
    return mark(
      { type: 'array' },
      seq(lit('['), gap, opt(seq(marked, star(seq(gap, lit(','), gap, marked)))), gap, lit(']')),
    );
  }

  /** An object with keys of its own choosing (a schema without `properties`). */
  function mapOf(value: Expr): Expr {
    const key = stringLiteral();
    const entry = mark({ type: 'entry' }, seq(leaf('string', key), gap, lit(':'), gap, value));
    return mark(
      { type: 'object' },
      seq(lit('{'), gap, opt(seq(entry, star(seq(gap, lit(','), gap, entry)))), gap, lit('}')),
    );
  }

  const braces: ObjectFrame = {
    open: '{',
    close: '}',
    key: (name) => {
      const text = literal(name);
      return text === undefined ? undefined : `${text}: `;
    },
    comma: ', ',
  };

  /**
   * An object with the schema's properties in schema order, required ones present, optional
   * ones at most once; `frame` says how members are written. Keys it cannot write are left
   * out when optional (a required one is the caller's to refuse: `unwritable` names it).
   */
  function objectOf(schema: JsonSchema, context: string, frame: ObjectFrame = braces): Expr {
    const required = new Set(schema.required ?? []);
    const members: Member[] = [];
    for (const [name, sub] of Object.entries(schema.properties ?? {})) {
      const key = frame.key(name);
      if (key === undefined) continue;
      const value = valueFor(sub, `${context}-${name}`);
      const member = mark({ type: 'key', key: name }, seq(lit(key.trimEnd()), gap, value));
      members.push({ expr: member, required: required.has(name) });
    }
    return mark(
      { type: 'object' },
      seq(
        lit(frame.open),
        gap,
        orderedMembers(rules, context, members, seq(gap, lit(frame.comma.trim()), gap)),
        gap,
        lit(frame.close),
      ),
    );
  }

  function valueFor(schema: JsonSchema | undefined, context: string): Expr {
    const where = context;
    const fixed = fixedValues(schema, where);
    if (fixed !== undefined) {
      const options = fixed.map(constant).filter((e): e is Expr => e !== undefined);
      return rules.define(`${context}-enum`, alt(...options));
    }
    const { types, nullable } = typesOf(schema);
    const value = valueOfType(schema ?? {}, types[0], context);
    return nullable && types.length > 0 ? alt(constant(null) as Expr, value) : value;
  }

  function valueOfType(schema: JsonSchema, type: string | undefined, context: string): Expr {
    switch (type) {
      case 'string':
        return leaf('string', stringLiteral());
      case 'integer':
        return leaf('number', rules.once('integer', integerExpr));
      case 'number':
        return leaf('number', rules.once('number', numberExpr));
      case 'boolean':
        return boolean();
      case 'null':
        return constant(null) as Expr;
      case 'array':
        return listOf(valueFor(schema.items, `${context}-item`));
      case 'object':
        if (schema.properties !== undefined) return objectOf(schema, context);
        return mapOf(
          typeof schema.additionalProperties === 'object'
            ? valueFor(schema.additionalProperties, `${context}-value`)
            : anyValue(2),
        );
      default:
        return anyValue(2);
    }
  }

  return { valueFor, objectOf, literal, stringLiteral };
}
