import { readModelValue, Syntax } from './body/model-json.js';
import type { ValueRepair } from './body/value-events.js';
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
      /** What was read otherwise than written (repaired, or numbers kept as written), in order. */
      warnings: ValueRepair[];
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

/** The keys of a JSON call's fields: its tool's name, its server's, its arguments. */
export interface JsonCallKeys {
  tool: string;
  server: string;
  arguments: string;
}

/**
 * Reads the deprecated JSON form, its fields named by `keys` (the `<tool>` protocol's
 * `{"server_name": …, "tool_name": …, "arguments": {…}}`), also with `name` for the tool and
 * `parameters` for the arguments (other formats' names). The arguments may also be a JSON
 * string holding the object, as some models write it. Read by the model-JSON reader: repairs
 * and numbers kept as written come back as warnings.
 */
export function readJsonCall(json: string, maxDepth: number, keys: JsonCallKeys): JsonCallResult {
  const read = readModelValue(json, Syntax.Json, maxDepth);
  if (!read.ok) return { ok: false, code: read.code, message: read.message, position: read.at };
  const fields = read.value;
  if (!isJsonObject(fields))
    return {
      ok: false,
      code: 'invalid-json',
      message: 'the JSON form must be an object',
      position: 0,
    };
  // Models trained on other formats write `name` and `parameters`: the same fields.
  const toolName = fields[keys.tool] ?? fields.name;
  let args = fields[keys.arguments] ?? fields.parameters;
  const server = fields[keys.server];
  const warnings = read.warnings;
  if (typeof args === 'string') {
    const inner = readModelValue(args, Syntax.Json, maxDepth);
    if (!inner.ok)
      return {
        ok: false,
        code: inner.code,
        message: `"${keys.arguments}" is a string that does not hold a JSON object (${inner.message})`,
        position: 0,
      };
    args = inner.value;
  }
  if (args !== undefined && args !== null && !isJsonObject(args))
    return {
      ok: false,
      code: 'invalid-json',
      message: `"${keys.arguments}" must be an object`,
      position: 0,
    };
  return {
    ok: true,
    serverName: typeof server === 'string' ? server.trim() : undefined,
    toolName: typeof toolName === 'string' ? toolName.trim() : undefined,
    arguments: (args ?? createObject()) as ToolArguments,
    warnings,
  };
}
