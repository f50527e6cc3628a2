import {
  DIALECT_VALUES,
  type Dialect,
  type JsonValue,
  renderCallIn,
  type ToolArguments,
} from '../protocol/index.js';
import { checkNesting } from '../protocol/json-depth.js';
import type { JsonSchema } from './define-tool.js';
import { SCHEMA_LIMITS } from './schema-limits.js';
import type { ListedTool, Toolbox } from './toolbox.js';

/** A plausible value for a schema, for the examples in the prompt. */
function exampleValue(schema: JsonSchema | undefined, name: string): JsonValue {
  if (schema?.enum !== undefined && schema.enum.length > 0) return schema.enum[0];
  if (schema?.default !== undefined) return schema.default;
  const type = Array.isArray(schema?.type) ? schema.type.find((t) => t !== 'null') : schema?.type;
  switch (type) {
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array': {
      // Two items show a list; one where an item is a list or object itself, so the example
      // grows with the schema, not twice over per level of nesting.
      const item = exampleValue(schema?.items, name);
      return item !== null && typeof item === 'object' ? [item] : [item, item];
    }
    case 'object':
      return exampleArguments(schema ?? {});
    default:
      return `${name} here`;
  }
}

function exampleArguments(schema: JsonSchema): ToolArguments {
  const out: ToolArguments = Object.create(null);
  for (const [name, property] of Object.entries(schema.properties ?? {}))
    out[name] = exampleValue(property, name);
  return out;
}

function describeParameters(schema: JsonSchema): string[] {
  const required = new Set(schema.required ?? []);
  return Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const type = Array.isArray(p.type) ? p.type.join(' | ') : (p.type ?? 'any');
    const options =
      p.enum === undefined ? '' : ` (one of ${p.enum.map((v) => JSON.stringify(v)).join(', ')})`;
    return `  - ${name} (${type}${required.has(name) ? ', required' : ''})${options}${p.description ? `: ${p.description}` : ''}`;
  });
}

export interface ToolPromptOptions {
  /** An example call per tool, generated from its schema. Default true. */
  examples?: boolean;
  /**
   * What this reply must do, as native APIs' tool choice says it: `required` (at least one
   * call) or one tool by name. Default: the model decides.
   */
  require?: 'any-tool' | { toolName: string };
  /**
   * Teach the format a model family was trained on (and read its replies in that dialect):
   * each example is written as its chat template writes calls. Default (and `auto`): the
   * `<tool>` protocol.
   */
  dialect?: Dialect | 'auto';
  /** Whether a reply may make several calls (default true); false teaches one call per reply. */
  parallelCalls?: boolean;
}

const ONE_CALL = '- At most one call per reply: make it, then wait for its result.';

/** How the examples of a dialect's calls are to be read, in a line or two. */
function dialectRules(dialect: Exclude<Dialect, 'tagcall'>, parallel: boolean): string[] {
  const values = {
    json: '- The arguments are a JSON object.',
    python: '- The arguments are Python keyword arguments with Python literals.',
    text: '- Write text values as they are; numbers, booleans, lists and objects as JSON.',
    gemma: '- Strings go between <|"|> tokens; keys are bare names; numbers and booleans as JSON.',
  };
  return [
    values[DIALECT_VALUES[dialect]],
    parallel ? '- Several calls in one reply are allowed.' : ONE_CALL,
  ];
}

/**
 * The system prompt's tool section: the protocol's rules, then every tool with its
 * parameters and an example call, so a model that has never seen the format can follow it.
 */
export async function renderToolPrompt(
  toolbox: Toolbox,
  options: ToolPromptOptions = {},
): Promise<string> {
  return toolPromptFor(await toolbox.listTools(), options);
}

type PromptTool = Pick<ListedTool, 'serverName' | 'name' | 'inputSchema'> & {
  description?: string;
};

/** The same tool section for a list of tools (an AI SDK call's or an OpenAI request's). */
export function toolPromptFor(
  tools: readonly PromptTool[],
  options: ToolPromptOptions = {},
): string {
  const dialect =
    options.dialect === undefined || options.dialect === 'auto' ? 'tagcall' : options.dialect;
  const completes = tools.some((t) => t.name === 'task_completion');
  const parallel = options.parallelCalls !== false;
  const lines =
    dialect === 'tagcall'
      ? [
          '# Tools',
          '',
          'You can call tools. To call one, write a block like this on lines of its own:',
          '',
          '<tool>',
          '<server_name>local</server_name>',
          '<tool_name>NAME</tool_name>',
          '<arguments>',
          '  <PARAMETER>value</PARAMETER>',
          '</arguments>',
          '</tool>',
          '',
          'Rules:',
          parallel
            ? '- One call per <tool> block; several blocks in one reply are allowed.'
            : ONE_CALL,
          '- <server_name> is the server the tool belongs to (listed with each tool).',
          '- Put code, markup and multi-line text in CDATA: <content><![CDATA[ ... ]]></content>.',
          '- A list is the same element repeated; an object is an element with child elements.',
          '- Think in brackets on lines of their own: [I should read the file first]',
          '- The result comes back in the next message as "Tool: NAME" followed by the output.',
          ...(completes
            ? ['- When the task is done, call task_completion with the answer in <result>.']
            : []),
          '',
        ]
      : [
          '# Tools',
          '',
          'You can call tools. To call one, write it like this:',
          '',
          renderCallIn(dialect, { toolName: 'NAME', arguments: { PARAMETER: 'value' } }),
          '',
          'Rules:',
          ...dialectRules(dialect, parallel),
          '- The result comes back in the next message as "Tool: NAME" followed by the output.',
          ...(completes
            ? ['- When the task is done, call task_completion with the answer as its result.']
            : []),
          '',
        ];
  for (const tool of tools) {
    lines.push(
      dialect === 'tagcall' ? `## ${tool.name} (server: ${tool.serverName})` : `## ${tool.name}`,
      '',
      tool.description || '(no description)',
      '',
    );
    const parameters = describeParameters(tool.inputSchema);
    lines.push(parameters.length > 0 ? 'Parameters:' : 'No parameters.', ...parameters, '');
    if (options.examples !== false) {
      // The example is made by recursion over the schema.
      checkNesting(tool.inputSchema, SCHEMA_LIMITS.maxDepth, `the schema of ${tool.name}`);
      const example = renderCallIn(dialect, {
        serverName: tool.serverName,
        toolName: tool.name,
        arguments: exampleArguments(tool.inputSchema),
      });
      lines.push('Example:', '', example, '');
    }
  }
  if (options.require === 'any-tool') lines.push('In this reply, call at least one tool.');
  else if (options.require !== undefined)
    lines.push(`In this reply, call the tool ${options.require.toolName}.`);
  return lines.join('\n');
}
