import type { JsonValue, ToolArguments } from '../protocol/index.js';

/** A JSON Schema, as far as tagcall reads it (any other keyword passes through to ajv). */
export interface JsonSchema {
  type?: string | readonly string[];
  properties?: { [name: string]: JsonSchema };
  required?: readonly string[];
  items?: JsonSchema;
  enum?: readonly JsonValue[];
  description?: string;
  additionalProperties?: boolean | JsonSchema;
  default?: JsonValue;
  [keyword: string]: unknown;
}

export interface ToolContext {
  signal: AbortSignal;
}

/** What a handler returns: text, or text flagged as an error the model should see. */
export type ToolOutput = string | { text: string; isError?: boolean };

/**
 * The arguments a handler gets for a tool whose schema is `S`, as TypeScript can read them from
 * a schema written in place: each property by its `type` (`integer` as number, a list of types
 * as their union), `enum` and `const` as their values, `items` and nested `properties` alike,
 * and the properties not in `required` optional. The toolbox coerces and validates arguments
 * against the schema before the handler runs, so these types hold at run time. A schema it
 * cannot read (a variable of type `JsonSchema`, `$ref`, `oneOf`) gives `ToolArguments`.
 */
export type ArgumentsOf<S> = S extends { properties: infer P }
  ? string extends keyof P
    ? ToolArguments
    : ObjectOf<S, P>
  : ToolArguments;

type ValueOf<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { type: infer T }
      ? T extends readonly (infer Each)[]
        ? ValueOfType<Each, S>
        : ValueOfType<T, S>
      : JsonValue;

type ValueOfType<T, S> = T extends 'string'
  ? string
  : T extends 'number' | 'integer'
    ? number
    : T extends 'boolean'
      ? boolean
      : T extends 'null'
        ? null
        : T extends 'array'
          ? S extends { items: infer I }
            ? ValueOf<I>[]
            : JsonValue[]
          : T extends 'object'
            ? S extends { properties: infer P }
              ? ObjectOf<S, P>
              : ToolArguments
            : JsonValue;

type RequiredOf<S> = S extends { required: readonly (infer R)[] } ? R : never;

/**
 * Required properties as they are, the others optional, none readonly (the `const` schema's
 * are); one flat object in editor hints.
 */
type ObjectOf<S, P> = {
  -readonly [K in keyof P as K extends RequiredOf<S> ? K : never]: ValueOf<P[K]>;
} & {
  -readonly [K in keyof P as K extends RequiredOf<S> ? never : K]?: ValueOf<P[K]>;
} extends infer O
  ? { [K in keyof O]: O[K] }
  : never;

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  // A method, not a function property: a tool whose handler was typed from its own schema (by
  // `defineTool`) is still a ToolDefinition, so tools of different schemas go in one list.
  handler(args: ToolArguments, context: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/** What `defineTool` takes: a tool whose handler's arguments are typed from its schema. */
export interface TypedToolDefinition<S extends JsonSchema> {
  name: string;
  description: string;
  inputSchema: S;
  handler(args: ArgumentsOf<S>, context: ToolContext): ToolOutput | Promise<ToolOutput>;
}

/**
 * A local tool: its name, what it does, its arguments' JSON Schema, and the function. Written
 * in place, the schema types the handler's arguments (see `ArgumentsOf`).
 */
export function defineTool<const S extends JsonSchema>(
  definition: TypedToolDefinition<S>,
): ToolDefinition {
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(definition.name)) {
    throw new Error(
      `tool name ${JSON.stringify(definition.name)} must be an XML name (letters, digits, _ . -)`,
    );
  }
  return definition;
}
