import { createObject } from './arguments-tree.js';
import type { JsonValue, ToolArguments } from './events.js';

export type JsonCallResult =
  | {
      ok: true;
      serverName: string | undefined;
      toolName: string | undefined;
      arguments: ToolArguments;
    }
  | { ok: false; message: string; position: number };

/** Copies parsed JSON onto null-prototype objects, so `__proto__` stays a plain key. */
export function toNullPrototype(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map(toNullPrototype);
  if (value !== null && typeof value === 'object') {
    const out = createObject();
    for (const [key, inner] of Object.entries(value)) out[key] = toNullPrototype(inner);
    return out;
  }
  return value as JsonValue;
}

/**
 * Reads the deprecated JSON form, `{"server_name": …, "tool_name": …, "arguments": {…}}`.
 * `arguments` may also be a JSON string holding the object, as some models write it.
 */
export function readJsonCall(json: string): JsonCallResult {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const at = /position (\d+)/.exec(message);
    return { ok: false, message, position: at ? Number(at[1]) : json.length };
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    return { ok: false, message: 'the JSON form must be an object', position: 0 };
  }
  const fields = parsed as Record<string, unknown>;
  let args = fields.arguments;
  if (typeof args === 'string') {
    try {
      args = JSON.parse(args);
    } catch {
      return {
        ok: false,
        message: '"arguments" is a string that does not hold a JSON object',
        position: 0,
      };
    }
  }
  if (args !== undefined && args !== null && (typeof args !== 'object' || Array.isArray(args))) {
    return { ok: false, message: '"arguments" must be an object', position: 0 };
  }
  return {
    ok: true,
    serverName: typeof fields.server_name === 'string' ? fields.server_name.trim() : undefined,
    toolName: typeof fields.tool_name === 'string' ? fields.tool_name.trim() : undefined,
    arguments: args == null ? createObject() : (toNullPrototype(args) as ToolArguments),
  };
}
