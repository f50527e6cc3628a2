import { isElementName } from '../protocol/dialects/index.js';
import type { JsonValue } from '../protocol/index.js';
import type { JsonSchema } from '../tools/index.js';
import { BLANKS } from './free-text.js';
import { literalValues } from './literal-values.js';
import { alt, chars, type Expr, lit, mark, opt, plus, seq, star } from './model.js';
import type { Rules } from './rules.js';
import { fixedValues, GrammarError, integerExpr, numberExpr, typesOf } from './schema-types.js';

const escapeText = (text: string) =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/**
 * Argument values in the `<tool>` protocol's elements, from a schema: text with entities or
 * CDATA for strings, digits, `true`/`false`, nested elements for objects with properties,
 * repeated elements for lists, JSON text for what elements do not say (objects without
 * properties, lists of lists). Where dispatch's coercion would read a written text as
 * something else (an empty or `null` text as null where null is allowed, a list's only item
 * that looks like JSON as that JSON), the grammar writes it so that it cannot.
 */
export function xmlValues(rules: Rules) {
  const json = literalValues(rules, { syntax: 'json', forbid: '<&' });
  const entity = rules.once('entity', () =>
    seq(lit('&'), alt(lit('lt'), lit('gt'), lit('amp'), lit('quot'), lit('apos')), lit(';')),
  );
  // CDATA without `]]>`: after one or more `]`, anything but `]` or `>`; trailing `]`s allowed.
  const cdata = rules.once('cdata', () =>
    seq(
      lit('<![CDATA['),
      star(
        alt(
          chars(']', true),
          seq(lit(']'), chars(']', true)),
          seq(lit(']]'), star(lit(']')), chars(']>', true)),
        ),
      ),
      star(lit(']')),
      lit(']]>'),
    ),
  );
  // One alternative per character (CDATA starts with `<`, which text excludes): no ambiguity
  // for llama.cpp's stacks to multiply.
  const text = rules.once('string-value', () => star(alt(chars('<&', true), entity, cdata)));
  const string = (expr: Expr) => mark({ type: 'value', syntax: 'xml', as: 'string' }, expr);
  const number = (expr: Expr) => mark({ type: 'value', syntax: 'xml', as: 'number' }, expr);
  const constant = (value: JsonValue, written: string) =>
    mark({ type: 'const', value }, lit(written));
  const nullText = (lone: boolean) =>
    lone ? constant(null, 'null') : alt(constant(null, ''), constant(null, 'null'));

  /**
   * A text that trims to neither empty nor `null` and, for a list's only item, does not begin
   * (after blanks) with `[` or `{`: its first character is not blank, and a leading `null` is
   * followed by more than blanks.
   */
  function guardedText(lone: boolean): Expr {
    return rules.once(lone ? 'lone-item-text' : 'non-null-text', () => {
      // CDATA may begin the text (the renderer writes `&` and `<` so); its content is kept as
      // written by every reader, so it needs none of the guards.
      const first = alt(chars(`${BLANKS}<&n${lone ? '[{' : ''}`, true), entity, cdata);
      const notNull = alt(
        lit('n'),
        seq(lit('n'), alt(chars('u<&', true), entity), text),
        lit('nu'),
        seq(lit('nu'), alt(chars('l<&', true), entity), text),
        lit('nul'),
        seq(lit('nul'), alt(chars('l<&', true), entity), text),
        seq(lit('null'), star(chars(BLANKS)), alt(chars(`${BLANKS}<&`, true), entity), text),
      );
      return alt(seq(first, text), notNull);
    });
  }

  const elements = (name: string, value: Expr) => seq(lit(`<${name}>`), value, lit(`</${name}>`));
  const ws = rules.once('ws', () => star(chars(' \t\n')));

  /** A value of `schema` as an element's content; `lone` for a list's only item. */
  function valueFor(schema: JsonSchema | undefined, context: string, lone = false): Expr {
    const fixed = fixedValues(schema, context);
    const { types, nullable } = typesOf(schema);
    if (fixed !== undefined) {
      const options = fixed
        .filter((v) => !(lone && typeof v === 'string' && /^\s*[[{]/.test(v)))
        .map((v) => constant(v, v === null ? 'null' : escapeText(String(v))));
      return rules.define(`${context}-enum`, alt(...options));
    }
    const type = types[0];
    if (type === undefined) return string(lone ? guardedText(true) : text);
    const value = valueOfType(schema ?? {}, type, context, nullable, lone);
    return nullable ? alt(nullText(lone), value) : value;
  }

  function valueOfType(
    schema: JsonSchema,
    type: string,
    context: string,
    nullable: boolean,
    lone: boolean,
  ): Expr {
    switch (type) {
      case 'integer':
        return number(rules.once('integer', integerExpr));
      case 'number':
        return number(rules.once('number', numberExpr));
      case 'boolean':
        return alt(constant(true, 'true'), constant(false, 'false'));
      case 'null':
        return nullText(lone);
      case 'object':
        return schema.properties === undefined
          ? json.valueFor(schema, context)
          : seq(ws, objectOf(schema, context, false), ws);
      case 'array':
        return json.valueFor(schema, context);
      default:
        return string(nullable || lone ? guardedText(lone) : text);
    }
  }

  /**
   * The schema's properties as elements in schema order, required ones present, optional ones
   * at most once, lists as repeated elements. `empty`: no element at all is allowed (the
   * arguments); a nested object with none written is `{}`, since an empty element is text.
   */
  function objectOf(schema: JsonSchema, context: string, empty: boolean): Expr {
    const required = new Set(schema.required ?? []);
    const members: Array<{ expr: Expr; required: boolean }> = [];
    for (const [name, sub] of Object.entries(schema.properties ?? {})) {
      if (!isElementName(name)) {
        if (!required.has(name)) continue;
        throw new GrammarError(
          `${context}: the required property ${JSON.stringify(name)} is not an XML name, so the <tool> protocol cannot write it as an element`,
        );
      }
      const { types } = typesOf(sub);
      const isList = types[0] === 'array';
      const item = (lone: boolean) =>
        seq(elements(name, valueFor(isList ? sub.items : sub, `${context}-${name}`, lone)), ws);
      let expr: Expr;
      if (!isList) expr = mark({ type: 'key', key: name }, item(false));
      else {
        const many = rules.define(`${context}-${name}-items`, mark({ type: 'item' }, item(false)));
        // A lone item written as JSON reads as the list itself (without the schemas, the
        // parser gives coercion a text): lists of lists or of free objects hold two or more.
        const itemTypes = typesOf(sub.items).types;
        const json =
          itemTypes[0] === 'array' ||
          (itemTypes[0] === 'object' && sub.items?.properties === undefined);
        const several = seq(many, plus(many));
        expr = mark(
          { type: 'key', key: name },
          mark(
            { type: 'array' },
            json ? several : alt(several, mark({ type: 'item' }, item(true))),
          ),
        );
      }
      members.push({ expr, required: required.has(name) });
    }
    // The first member written decides which may follow: an object is never empty by accident.
    let nonEmpty: Expr | undefined;
    let rest: Expr = lit('');
    for (let i = members.length - 1; i >= 0; i--) {
      const first = seq(members[i].expr, rest);
      nonEmpty = members[i].required || nonEmpty === undefined ? first : alt(first, nonEmpty);
      if (i > 0)
        rest = rules.define(
          `${context}-from-${i}`,
          seq(members[i].required ? members[i].expr : opt(members[i].expr), rest),
        );
    }
    const written = nonEmpty === undefined ? lit('') : rules.define(`${context}-members`, nonEmpty);
    const allOptional = members.every((m) => !m.required);
    const none = empty ? lit('') : mark({ type: 'const', value: {} }, lit('{}'));
    const body = nonEmpty === undefined ? none : allOptional ? alt(written, none) : written;
    return mark({ type: 'object' }, rules.define(`${context}-args`, body));
  }

  return { valueFor, objectOf, ws, entity, cdata, text };
}
