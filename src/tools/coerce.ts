import { readModelValue } from '../protocol/body/model-json.js';
import {
  type CallFormat,
  DIALECT_VALUES,
  type JsonValue,
  PARSER_DEFAULTS,
  renderArguments,
  type ToolArguments,
} from '../protocol/index.js';
import { checkNesting } from '../protocol/json-depth.js';
import type { JsonSchema } from './define-tool.js';
import { SCHEMA_LIMITS } from './schema-limits.js';

const types = (schema: JsonSchema | undefined): readonly string[] =>
  schema?.type === undefined ? [] : typeof schema.type === 'string' ? [schema.type] : schema.type;

const branchesOf = (schema: JsonSchema): JsonSchema[] | undefined => {
  const branches = schema.anyOf ?? schema.oneOf;
  return Array.isArray(branches) && branches.every((b) => b !== null && typeof b === 'object')
    ? (branches as JsonSchema[])
    : undefined;
};

/**
 * A schema of alternatives (`anyOf`/`oneOf` without a `type`, as Pydantic writes `Optional[T]`:
 * `anyOf: [T, {type: 'null'}]`) as one schema for coercion: the branches' types together, a
 * list's items and an object's properties from the first branch that is one, their enums
 * together. Validation still checks the alternatives as written.
 */
function merged(schema: JsonSchema): JsonSchema {
  const branches = schema.type === undefined ? branchesOf(schema) : undefined;
  if (branches === undefined) return schema;
  const flat = branches.map(merged);
  const list = flat.find((b) => types(b).includes('array'));
  const object = flat.find((b) => types(b).includes('object') || b.properties !== undefined);
  const enums = flat.every((b) => b.enum !== undefined)
    ? flat.flatMap((b) => b.enum ?? [])
    : undefined;
  return {
    ...schema,
    type: [...new Set(flat.flatMap((b) => types(b)))],
    ...(list?.items !== undefined && { items: list.items }),
    ...(object?.properties !== undefined && { properties: object.properties }),
    ...(object?.additionalProperties !== undefined && {
      additionalProperties: object.additionalProperties,
    }),
    ...(enums !== undefined && { enum: enums }),
  };
}

// Each digit has one place to go (the fraction needs its dot), so a failed match backs off in
// linear time: `\d+\.?\d*` split a run of 40,000 digits every way before failing.
const NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * An object or list written as text: JSON, or what a model or a template meant by it (Python's
 * `{'a': True}`, as Seed-OSS's template writes dicts; single quotes, trailing commas), read by
 * the parser's model-JSON reader (one pass, linear). Text nested deeper than the parser's
 * default `maxDepth` stays text, for validation to report.
 */
function parseJson(text: string): JsonValue | undefined {
  const read = readModelValue(text, undefined, PARSER_DEFAULTS.maxDepth);
  return read.ok ? read.value : undefined;
}

/**
 * JSON text written escaped, as inside a JSON string (`[{\"id\": \"1\"}]`: GLM-4.6 and 4.7
 * write a list argument so at times, and SGLang reads it): every quote in it escaped. The text
 * one level unescaped, or undefined when it is not so written.
 */
function unescapedJson(text: string): string | undefined {
  if (!text.includes('\\"') || /(?:^|[^\\])"/.test(text)) return undefined;
  try {
    return JSON.parse(`"${text}"`) as string;
  } catch {
    return undefined;
  }
}

const isObject = (v: JsonValue | undefined): v is { [key: string]: JsonValue } =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * How a call's values were written: as element text (the `<tool>` protocol, the XML-ish
 * families), where a string is all there is, or as literals (JSON, Python, Gemma's), where a
 * string was written as one.
 */
export type WrittenAs = 'text' | 'literal';

/** How the values of a call in `format` were written (text when not known). */
export function writtenAs(format: CallFormat | undefined): WrittenAs {
  if (format === undefined || format === 'xml') return 'text';
  if (format === 'json') return 'literal';
  return DIALECT_VALUES[format] === 'text' ? 'text' : 'literal';
}

/**
 * Turns what XML gives (strings, nested objects, repeated elements) into what the schema
 * asks for, before validation: numbers and booleans from text (`1`/`0` too, for a flag), lists from single elements or
 * wrapper elements, objects and lists from JSON text, null from an empty element, enums
 * matched after trimming, JSON text written escaped (`[{\"id\": 1}]`) read one level
 * unescaped. What cannot be coerced is left as it is for validation to report.
 * A string written as a literal (`"label": ""`) stays a string where the schema allows one:
 * only text reads as null when empty or `null`.
 */
export function coerceValue(
  value: JsonValue,
  given: JsonSchema | undefined,
  written: WrittenAs = 'text',
): JsonValue {
  if (given === undefined) return value;
  const schema = merged(given);
  const allowed = types(schema);
  if (typeof value === 'string') {
    const text = value.trim();
    const stringAllowed = written === 'literal' && allowed.includes('string');
    if (allowed.includes('null') && !stringAllowed && (text === '' || text === 'null')) return null;
    // Python's None, as models trained on Python calls write it, where no string could mean it.
    if (allowed.includes('null') && !allowed.includes('string') && text === 'None') return null;
    if (schema.enum !== undefined) {
      const match = schema.enum.find((option) => String(option) === text);
      if (match !== undefined) return match;
    }
    if ((allowed.includes('integer') || allowed.includes('number')) && NUMBER.test(text)) {
      // As the parser reads numbers: one a double cannot hold (1e999, an integer past 2^53) stays
      // the text written for validation to report, rather than turning into Infinity or another number.
      const n = Number(text);
      if (Number.isFinite(n) && (/[.eE]/.test(text) || Number.isSafeInteger(n))) return n;
    }
    if (allowed.includes('boolean') && /^(true|false)$/i.test(text))
      return text.toLowerCase() === 'true';
    // 1 and 0 for a flag (iFlytek Spark 3 writes them so, and SGLang reads them as booleans),
    // where neither a number nor a string could be meant.
    if (allowed.includes('boolean') && !allowed.includes('string') && /^[01]$/.test(text))
      return text === '1';
    if ((allowed.includes('object') || allowed.includes('array')) && /^[[{]/.test(text)) {
      const parsed = parseJson(unescapedJson(text) ?? text);
      if (parsed !== undefined && !allowed.includes('string'))
        return coerceValue(parsed, schema, written);
    }
  }
  if (allowed.includes('array')) {
    let list: JsonValue[];
    const lone = Array.isArray(value) && value.length === 1 ? value[0] : undefined;
    const wholeList =
      typeof lone === 'string' && /^\s*\[/.test(lone) && !types(schema.items).includes('array')
        ? parseJson(lone.trim())
        : undefined;
    // Given the schema, the parser makes a lone element a list of one; when that element is
    // the whole list written as JSON (`<parameter=items>["a", "b"]</parameter>`), it is the list.
    if (Array.isArray(wholeList)) list = wholeList;
    else if (Array.isArray(value)) list = value;
    else if (
      isObject(value) &&
      Object.keys(value).length === 1 &&
      !wantsKey(schema.items, Object.keys(value)[0])
    ) {
      // <files><file>…</file><file>…</file></files>: the wrapper's one child name is the item.
      const inner = value[Object.keys(value)[0]];
      list = Array.isArray(inner) ? inner : [inner];
    } else if (value === '' && !allowed.includes('string')) list = [];
    else list = [value];
    return list.map((item) => coerceValue(item, schema.items, written));
  }
  if (isObject(value) && (allowed.includes('object') || schema.properties !== undefined)) {
    const out: { [key: string]: JsonValue } = Object.create(null);
    for (const [key, inner] of Object.entries(value)) {
      const extra =
        typeof schema.additionalProperties === 'object' ? schema.additionalProperties : undefined;
      out[key] = coerceValue(inner, schema.properties?.[key] ?? extra, written);
    }
    return out;
  }
  if (allowed.includes('string') && !allowed.includes('object')) {
    // The parser read markup as elements because it was not given this schema: give it back as text.
    if (isObject(value)) return renderArguments(value as ToolArguments, '');
    if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  }
  return value;
}

function wantsKey(items: JsonSchema | undefined, key: string): boolean {
  return items?.properties !== undefined && Object.hasOwn(items.properties, key);
}

/** The keys models wrap a tool's whole arguments in (`{"arguments": {…}}`). */
const ARGUMENT_WRAPPERS: readonly string[] = ['arguments', 'input'];

/**
 * The arguments inside a lone `arguments` or `input` key the schema does not have, when they
 * are an object (or JSON text of one) whose keys are all the schema's: a model that wrapped
 * the call's arguments (`<｜DSML｜parameter name="arguments">{"location": …}</｜DSML｜parameter>`),
 * read as vLLM's DSML reader reads it. Anything else is left as written, for validation.
 */
function unwrapped(args: ToolArguments, schema: JsonSchema): ToolArguments {
  const properties = schema.properties;
  const keys = Object.keys(args);
  if (properties === undefined || Object.keys(properties).length === 0 || keys.length !== 1)
    return args;
  const [key] = keys;
  if (!ARGUMENT_WRAPPERS.includes(key) || Object.hasOwn(properties, key)) return args;
  const value = args[key];
  const inner = typeof value === 'string' ? parseJson(value.trim()) : value;
  return isObject(inner) && Object.keys(inner).every((k) => Object.hasOwn(properties, k))
    ? (inner as ToolArguments)
    : args;
}

/**
 * `coerceValue` over a call's arguments (unwrapped first, see `unwrapped`). It recurses as
 * deep as the schema goes: a schema nesting deeper than `SCHEMA_LIMITS.maxDepth` throws
 * `NestingLimitError`.
 */
export function coerceArguments(
  args: ToolArguments,
  schema: JsonSchema,
  written: WrittenAs = 'text',
): ToolArguments {
  checkNesting(schema, SCHEMA_LIMITS.maxDepth, 'the schema');
  const given = unwrapped(args, schema);
  const value = coerceValue(given, { ...schema, type: 'object' }, written);
  return (isObject(value) ? value : given) as ToolArguments;
}
