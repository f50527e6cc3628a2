import type { Dialect } from '../dialect-names.js';
import type { JsonValue, ToolArguments } from '../events.js';
import { checkNesting, MAX_RENDERED_DEPTH } from '../json-depth.js';
import { type RenderableCall, renderCall } from '../render.js';

/** A value as Gemma 4's template writes it: strings between `<|"|>`, keys bare. */
function gemmaValue(value: JsonValue): string {
  if (typeof value === 'string') return `<|"|>${value}<|"|>`;
  if (Array.isArray(value)) return `[${value.map(gemmaValue).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.entries(value)
      .map(([k, v]) => `<|"|>${k}<|"|>:${gemmaValue(v)}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** A value as the XML-ish forms write it: text as it is, anything else as JSON. */
const text = (value: JsonValue) => (typeof value === 'string' ? value : JSON.stringify(value));

/**
 * A call written the way its model family writes it, as each family's chat template renders
 * an earlier call (and so as the parser reads it back). For the prompt's examples and for
 * earlier calls in a conversation sent to a model of that family. `tagcall` is the `<tool>`
 * protocol. Throws `NestingLimitError` for arguments nesting deeper than `MAX_RENDERED_DEPTH`.
 */
export function renderCallIn(dialect: Dialect, call: RenderableCall): string {
  checkNesting(call.arguments, MAX_RENDERED_DEPTH, `the arguments of ${call.toolName}`);
  const name = call.toolName;
  const args = call.arguments as ToolArguments;
  const entries = Object.entries(args) as Array<[string, JsonValue]>;
  const json = JSON.stringify(args);
  const invokes = (open: string, close: string) =>
    `${open}\n<invoke name="${name}">\n${entries.map(([k, v]) => `<parameter name="${k}">${text(v)}</parameter>\n`).join('')}</invoke>\n${close}`;
  switch (dialect) {
    case 'tagcall':
      return renderCall(call);
    case 'anthropic-xml':
      return invokes('<function_calls>', '</function_calls>');
    case 'minimax-m2':
      return invokes('<minimax:tool_call>', '</minimax:tool_call>');
    case 'qwen3-coder':
      return `<tool_call>\n<function=${name}>\n${entries.map(([k, v]) => `<parameter=${k}>\n${text(v)}\n</parameter>\n`).join('')}</function>\n</tool_call>`;
    case 'seed-oss':
      return `<seed:tool_call>\n<function=${name}>\n${entries.map(([k, v]) => `<parameter=${k}>${text(v)}</parameter>\n`).join('')}</function>\n</seed:tool_call>`;
    case 'glm':
      return `<tool_call>${name}\n${entries.map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${text(v)}</arg_value>\n`).join('')}</tool_call>`;
    case 'deepseek':
      return `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>${name}<｜tool▁sep｜>${json}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
    case 'deepseek-dsml':
      return `<｜DSML｜function_calls>\n<｜DSML｜invoke name="${name}">\n${entries.map(([k, v]) => `<｜DSML｜parameter name="${k}" string="${typeof v === 'string'}">${text(v)}</｜DSML｜parameter>\n`).join('')}</｜DSML｜invoke>\n</｜DSML｜function_calls>`;
    case 'step3':
      return `<｜tool_calls_begin｜><｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="${name}">${entries.map(([k, v]) => `<steptml:parameter name="${k}">${text(v)}</steptml:parameter>`).join('')}</steptml:invoke><｜tool_call_end｜><｜tool_calls_end｜>`;
    case 'kimi-k2':
      return `<|tool_calls_section_begin|><|tool_call_begin|>functions.${name}:0<|tool_call_argument_begin|>${json}<|tool_call_end|><|tool_calls_section_end|>`;
    case 'hermes':
      return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
    case 'nemotron':
      return `<TOOLCALL>[${JSON.stringify({ name, arguments: args })}]</TOOLCALL>`;
    case 'command-r7b':
      return `<|START_ACTION|>[\n    ${JSON.stringify({ tool_call_id: '0', tool_name: name, parameters: args })}\n]<|END_ACTION|>`;
    case 'mistral':
      return `[TOOL_CALLS]${name}[ARGS]${json}`;
    case 'lfm2':
      return `<|tool_call_start|>[${name}(${entries.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')})]<|tool_call_end|>`;
    case 'minicpm3':
      return `<|tool_call_start|>\n\`\`\`python\n${name}(${entries.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(',')})\n\`\`\`\n<|tool_call_end|>`;
    case 'jamba':
      return `<tool_calls>[${JSON.stringify({ name, arguments: args })}]</tool_calls>`;
    case 'granite':
      return `<|tool_call|>[${JSON.stringify({ name, arguments: args })}]`;
    case 'llama3-json':
      return JSON.stringify({ name, parameters: args });
    case 'olmo3':
      return `<function_calls>\n${name}(${entries.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')})\n</function_calls>`;
    case 'gpt-oss':
      return `<|start|>assistant<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>${json}<|call|>`;
    case 'functionary':
      return `<function=${name}>${json}</function>`;
    case 'functools':
      return ` functools[${JSON.stringify({ name, arguments: args })}]`;
    case 'xlam':
      return `[${JSON.stringify({ name, arguments: args })}]`;
    case 'apertus':
      return `<|tools_prefix|>[${JSON.stringify({ [name]: args })}]<|tools_suffix|>`;
    case 'internlm':
      return `<|action_start|><|plugin|>\n${JSON.stringify({ name, arguments: args })}<|action_end|>`;
    case 'gigachat':
      return `<|message_sep|>\n\nfunction call<|role_sep|>\n${JSON.stringify({ name, arguments: args })}`;
    case 'longcat':
      return `<longcat_tool_call>${JSON.stringify({ name, arguments: args })}</longcat_tool_call>`;
    case 'llama4':
      return `[${name}(${entries.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(', ')})]`;
    case 'gemma4':
      return `<|tool_call>call:${name}{${entries.map(([k, v]) => `${k}:${gemmaValue(v)}`).join(',')}}<tool_call|>`;
    case 'cline':
      return `<${name}>\n${entries.map(([k, v]) => `<${k}>${text(v)}</${k}>\n`).join('')}</${name}>`;
  }
}
