import type { ArgumentPath, JsonValue, ToolArguments } from '../protocol/index.js';
import type { JsonSchema } from '../tools/index.js';

/** JSON string body of `text` (without the quotes). Lone surrogates come out escaped, so a
 * pair split between two deltas still reads back as the one character. */
const escapeJson = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * Writes a call's arguments as JSON while the call streams, in fragments whose concatenation
 * is the arguments' JSON. String arguments at the top level (schema type `string` without an
 * enum, or not in the schema) are written as their text arrives; everything else (numbers,
 * booleans, lists, objects, enums) is written at the end from the final, schema-coerced
 * arguments. A streamed value that turns out different in the end (the model repeated the
 * element, nested elements in it, or the schema coerced it) is written again at the end: JSON
 * readers keep the last of duplicate keys, so the object read is the final arguments.
 */
export class ArgumentsJsonWriter {
  #opened = false;
  #openKey: string | null = null;
  /** What was written of each streamed key's value. */
  readonly #streamed = new Map<string, string>();

  constructor(private readonly schema: JsonSchema | undefined) {}

  #streamable(key: string): boolean {
    const property = this.schema?.properties?.[key];
    if (property === undefined) return this.schema?.additionalProperties !== false;
    return property.type === 'string' && property.enum === undefined;
  }

  #closeString(): string {
    if (this.#openKey === null) return '';
    this.#openKey = null;
    return '"';
  }

  /** The fragment for an `argument-delta`; '' when its value is left for the end. */
  delta(path: ArgumentPath, text: string): string {
    const key = path.names[0];
    if (key === undefined) return '';
    const simple = path.names.length === 1 && path.indices[0] === 0;
    if (!simple || !this.#streamable(key)) {
      // Not a plain string after all (nested or repeated): its value is written at the end.
      return this.#openKey === key ? this.#closeString() : '';
    }
    let out = '';
    if (this.#openKey !== key) {
      out += this.#closeString();
      // Text after a nested element: the value is no plain string; it is written at the end.
      if (this.#streamed.has(key)) return out;
      out += `${this.#opened ? ',' : '{'}${JSON.stringify(key)}:"`;
      this.#opened = true;
      this.#openKey = key;
      this.#streamed.set(key, '');
    }
    this.#streamed.set(key, (this.#streamed.get(key) ?? '') + text);
    return out + escapeJson(text);
  }

  /** The rest of the JSON, given the call's final (coerced) arguments. */
  finish(final: ToolArguments): string {
    let out = this.#closeString();
    for (const [key, value] of Object.entries(final) as Array<[string, JsonValue]>) {
      // Streamed as it is: done. Streamed but different in the end: written again, and read last.
      if (this.#streamed.get(key) === value) continue;
      out += `${this.#opened ? ',' : '{'}${JSON.stringify(key)}:${JSON.stringify(value)}`;
      this.#opened = true;
    }
    return `${out}${this.#opened ? '}' : '{}'}`;
  }

  /** Closes what is open, for a call that failed: the fragments so far become a whole object. */
  abandon(): string {
    const out = this.#closeString();
    return `${out}${this.#opened ? '}' : '{}'}`;
  }
}
