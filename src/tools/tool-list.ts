import { isJsonObject } from '../protocol/json-call.js';
import type { JsonSchema } from './define-tool.js';
import type { ListedTool } from './toolbox.js';

const EXPECTED =
  'a tool list: an array of {"name", "inputSchema"} (tagcall, MCP), of {"type": "function", "function": {"name", "parameters"}} (OpenAI), of {"name", "input_schema"} (Anthropic), or {"tools": [...]} (an MCP tools/list result)';

/**
 * The tools in a JSON tool list, whichever common shape it has: tagcall's and MCP's
 * `{name, description, inputSchema}`, OpenAI's `{type: "function", function: {name,
 * description, parameters}}`, Anthropic's `{name, description, input_schema}`, or any of
 * these under `{"tools": [...]}`. Throws an `Error` saying what was expected and where.
 */
export function readToolList(value: unknown): ListedTool[] {
  const list = isJsonObject(value) && Array.isArray(value.tools) ? value.tools : value;
  if (!Array.isArray(list)) throw new Error(`expected ${EXPECTED}`);
  return list.map((item, i): ListedTool => {
    const tool =
      isJsonObject(item) && item.type === 'function' && isJsonObject(item.function)
        ? item.function
        : item;
    if (!isJsonObject(tool) || typeof tool.name !== 'string' || tool.name === '')
      throw new Error(`item ${i} has no "name"; expected ${EXPECTED}`);
    const schema = tool.inputSchema ??
      tool.input_schema ??
      tool.parameters ?? { type: 'object', properties: {} };
    if (!isJsonObject(schema))
      throw new Error(
        `the input schema of ${JSON.stringify(tool.name)} (item ${i}) must be a JSON Schema object`,
      );
    return {
      serverName: typeof tool.serverName === 'string' ? tool.serverName : 'local',
      name: tool.name,
      description: typeof tool.description === 'string' ? tool.description : '',
      inputSchema: schema as JsonSchema,
    };
  });
}
