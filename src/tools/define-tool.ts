import type { JsonValue, ToolArguments } from '../protocol/index.js';

/** A JSON Schema, as far as tagcall reads it (any other keyword passes through to ajv). */
export interface JsonSchema {
  type?: string | string[];
  properties?: { [name: string]: JsonSchema };
  required?: string[];
  items?: JsonSchema;
  enum?: JsonValue[];
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

export interface ToolDefinition {
  name: string;
  description: string;
  inputSchema: JsonSchema;
  handler: (args: ToolArguments, context: ToolContext) => ToolOutput | Promise<ToolOutput>;
}

/** A local tool: its name, what it does, its arguments' JSON Schema, and the function. */
export function defineTool(definition: ToolDefinition): ToolDefinition {
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(definition.name)) {
    throw new Error(
      `tool name ${JSON.stringify(definition.name)} must be an XML name (letters, digits, _ . -)`,
    );
  }
  return definition;
}
