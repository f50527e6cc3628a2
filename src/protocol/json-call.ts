import { jsonrepair } from 'jsonrepair';
import type { JsonValue, ToolArguments } from './events.js';
import { createObject } from './markup/arguments-tree.js';

/** A JSON object (not null, not a list): what a record, a message or a field must be. */
export const isJsonObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

export type JsonCallResult =
  | {
      ok: true;
      serverName: string | undefined;
      toolName: string | undefined;
      arguments: ToolArguments;
      /** Why the JSON needed repair, when it did, and where strict parsing stopped. */
      repaired?: string;
      position?: number;
    }
  | { ok: false; code: 'invalid-json' | 'max-depth-exceeded'; message: string; position: number };

/**
 * Copies parsed JSON onto null-prototype objects, so `__proto__` stays a plain key. Iterative:
 * a document nested thousands deep is copied, not a stack overflow.
 */
export function toNullPrototype(value: unknown): JsonValue {
  const copy = (v: unknown): JsonValue =>
    Array.isArray(v)
      ? new Array(v.length)
      : v !== null && typeof v === 'object'
        ? createObject()
        : (v as JsonValue);
  const top = copy(value);
  const work: Array<[unknown, JsonValue]> = [[value, top]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [from, to] = item;
    if (Array.isArray(from)) {
      const out = to as JsonValue[];
      for (let i = 0; i < from.length; i++) {
        out[i] = copy(from[i]);
        if (out[i] !== null && typeof out[i] === 'object') work.push([from[i], out[i]]);
      }
    } else if (from !== null && typeof from === 'object') {
      const out = to as { [key: string]: JsonValue };
      for (const [key, inner] of Object.entries(from)) {
        out[key] = copy(inner);
        if (out[key] !== null && typeof out[key] === 'object') work.push([inner, out[key]]);
      }
    }
  }
  return top;
}

/**
 * How deep `json`'s arrays and objects nest, counted in one pass (strings skipped), stopping
 * as soon as it passes `max`: JSON nested past the parser's `maxDepth` is refused before it is
 * parsed, so nothing downstream (coercion, validation, JSON.stringify) meets it.
 */
export function jsonDepthExceeds(json: string, max: number): number {
  let depth = 0;
  // Jumps from one character that matters to the next (2.5× faster than a loop over all).
  for (let i = 0; i < json.length; ) {
    STRUCTURE.lastIndex = i;
    if (!STRUCTURE.test(json)) return -1;
    const at = STRUCTURE.lastIndex - 1;
    const c = json.charCodeAt(at);
    i = at + 1;
    if (c === 0x22) {
      const end = closingQuote(json, i);
      if (end === -1) return -1;
      i = end + 1;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return at;
    } else depth--;
  }
  return -1;
}

/** Whether a parsed JSON value nests deeper than `max` arrays and objects. */
function valueDepthExceeds(value: unknown, max: number): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (max === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (valueDepthExceeds(item, max - 1)) return true;
    return false;
  }
  for (const key in value)
    if (valueDepthExceeds((value as Record<string, unknown>)[key], max - 1)) return true;
  return false;
}

/** Whether `json` ends inside a double-quoted string (one pass, quote to quote). */
function endsInString(json: string): boolean {
  for (let i = 0; ; ) {
    const open = json.indexOf('"', i);
    if (open === -1) return false;
    const close = closingQuote(json, open + 1);
    if (close === -1) return true;
    i = close + 1;
  }
}

/** What `jsonDepthExceeds` stops at outside strings. */
const STRUCTURE = /["[\]{}]/g;

/**
 * The quote that ends a JSON string whose text starts at `from` (after its opening quote, and
 * after any escape that began before `from`), or -1 when `s` ends first. It goes from quote
 * to quote, counting the backslashes before each, rather than stopping at every backslash.
 */
export function closingQuote(s: string, from: number, quote = '"'): number {
  for (let q = s.indexOf(quote, from); q !== -1; q = s.indexOf(quote, q + 1)) {
    let k = q - 1;
    while (k >= from && s.charCodeAt(k) === 0x5c) k--;
    if ((q - 1 - k) % 2 === 0) return q;
  }
  return -1;
}

/** Whether `s` ends inside an escape: an odd run of backslashes at its end, after `from`. */
export function endsInEscape(s: string, from: number): boolean {
  let k = s.length - 1;
  while (k >= from && s.charCodeAt(k) === 0x5c) k--;
  return (s.length - 1 - k) % 2 === 1;
}

export type ModelJson =
  /**
   * `repaired` says why strict JSON rejected the text, when it was read through a repair, and
   * `position` where.
   */
  | { ok: true; value: unknown; repaired?: string; position?: number }
  | { ok: false; code: 'invalid-json' | 'max-depth-exceeded'; message: string; position: number };

/** `JSON.parse` for JSON a model wrote: nesting bounded, the failure's position kept. */
export function parseModelJson(json: string, maxDepth: number): ModelJson {
  const tooDeep = (): ModelJson | null => {
    const deep = jsonDepthExceeds(json, maxDepth);
    return deep === -1
      ? null
      : {
          ok: false,
          code: 'max-depth-exceeded',
          message: `the JSON nests deeper than ${maxDepth} levels`,
          position: deep,
        };
  };
  try {
    // JSON.parse reads any depth without recursing; the depth is checked on its value (a walk
    // over containers, not a second pass over every character), and the text is scanned for
    // where only when it is too deep.
    const value: unknown = JSON.parse(json);
    return valueDepthExceeds(value, maxDepth) ? (tooDeep() as ModelJson) : { ok: true, value };
  } catch (error) {
    // jsonrepair recurses: its input's depth is bounded first.
    const deep = tooDeep();
    if (deep !== null) return deep;
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    const position = at ? Number(at[1]) : json.length;
    // Text cut inside a string is no sloppy JSON but a value cut short: never "repaired".
    const value = endsInString(json) ? undefined : repairJson(json);
    if (value === undefined) return { ok: false, code: 'invalid-json', message, position };
    return {
      ok: true,
      value,
      position,
      repaired: `the JSON is not strict (${message}); it was read as repaired, write strict JSON`,
    };
  }
}

/**
 * What a model clearly meant by JSON that strict JSON rejects (raw newlines or tabs in
 * strings, trailing commas, single quotes, unquoted keys, comments, a missing final brace),
 * read through jsonrepair; undefined when it cannot be repaired into an object or a list (a
 * bare word is not repaired into a string). The depth was bounded before: jsonrepair recurses.
 */
function repairJson(json: string): unknown {
  try {
    const value: unknown = JSON.parse(jsonrepair(json));
    return value !== null && typeof value === 'object' ? value : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads the deprecated JSON form, `{"server_name": …, "tool_name": …, "arguments": {…}}`,
 * also with `name` for `tool_name` and `parameters` for `arguments` (other formats' names).
 * `arguments` may also be a JSON string holding the object, as some models write it.
 */
export function readJsonCall(json: string, maxDepth: number): JsonCallResult {
  const read = parseModelJson(json, maxDepth);
  if (!read.ok) return read;
  const parsed = read.value;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return {
      ok: false,
      code: 'invalid-json',
      message: 'the JSON form must be an object',
      position: 0,
    };
  }
  const fields = parsed as Record<string, unknown>;
  // Models trained on other formats write `name` and `parameters`: the same fields.
  const toolName = fields.tool_name ?? fields.name;
  const args = readJsonArguments(fields.arguments ?? fields.parameters, maxDepth);
  if (!args.ok) return { ...args, position: 0 };
  return {
    ok: true,
    serverName: typeof fields.server_name === 'string' ? fields.server_name.trim() : undefined,
    toolName: typeof toolName === 'string' ? toolName.trim() : undefined,
    arguments: args.arguments,
    ...(read.repaired !== undefined && { repaired: read.repaired, position: read.position }),
  };
}

/**
 * A call's arguments as JSON gave them: an object, a JSON string holding one (as some models
 * write it), or nothing (`{}`); on null-prototype objects.
 */
export function readJsonArguments(
  value: unknown,
  maxDepth: number,
):
  | { ok: true; arguments: ToolArguments }
  | { ok: false; code: 'invalid-json' | 'max-depth-exceeded'; message: string } {
  let args = value;
  if (typeof args === 'string') {
    const inner = parseModelJson(args, maxDepth);
    if (!inner.ok) {
      return {
        ok: false,
        code: inner.code,
        message: `"arguments" is a string that does not hold a JSON object (${inner.message})`,
      };
    }
    args = inner.value;
  }
  if (args !== undefined && args !== null && (typeof args !== 'object' || Array.isArray(args)))
    return { ok: false, code: 'invalid-json', message: '"arguments" must be an object' };
  return {
    ok: true,
    arguments: args == null ? createObject() : (toNullPrototype(args) as ToolArguments),
  };
}

/**
 * A call's arguments written as a JSON body on their own (DeepSeek's, Kimi's, Mistral's,
 * harmony's): the object, read through a repair when strict JSON rejects it (`repaired` says
 * why), or why it is no object.
 */
export function readArgumentsBody(
  json: string,
  maxDepth: number,
):
  | { ok: true; arguments: ToolArguments; repaired?: string }
  | { ok: false; code: 'invalid-json' | 'max-depth-exceeded'; message: string } {
  const read = parseModelJson(json.trim() === '' ? '{}' : json, maxDepth);
  if (!read.ok)
    return {
      ok: false,
      code: read.code,
      message: `the call's arguments are not a JSON object: ${read.message}`,
    };
  const args = readJsonArguments(read.value, maxDepth);
  if (!args.ok)
    return {
      ok: false,
      code: args.code,
      message: `the call's arguments are not a JSON object: ${args.message}`,
    };
  return read.repaired === undefined ? args : { ...args, repaired: read.repaired };
}
