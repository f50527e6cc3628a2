import type { Dialect, ToolArguments } from './all.js';

/** A call written the way each model family writes it (string arguments only). */
export function renderInDialect(
  dialect: Exclude<Dialect, 'tagcall'>,
  tool: string,
  args: ToolArguments,
): string {
  const entries = Object.entries(args) as Array<[string, string]>;
  switch (dialect) {
    case 'anthropic-xml':
      return `<function_calls>\n<invoke name="${tool}">\n${entries.map(([k, v]) => `<parameter name="${k}">${v}</parameter>\n`).join('')}</invoke>\n</function_calls>`;
    case 'minimax-m2':
      return `<minimax:tool_call>\n<invoke name="${tool}">\n${entries.map(([k, v]) => `<parameter name="${k}">${v}</parameter>\n`).join('')}</invoke>\n</minimax:tool_call>`;
    case 'qwen3-coder':
      return `<tool_call>\n<function=${tool}>\n${entries.map(([k, v]) => `<parameter=${k}>\n${v}\n</parameter>\n`).join('')}</function>\n</tool_call>`;
    case 'seed-oss':
      return `<seed:tool_call>\n<function=${tool}>\n${entries.map(([k, v]) => `<parameter=${k}>${v}</parameter>\n`).join('')}</function>\n</seed:tool_call>`;
    case 'glm':
      return `<tool_call>${tool}\n${entries.map(([k, v]) => `<arg_key>${k}</arg_key>\n<arg_value>${v}</arg_value>\n`).join('')}</tool_call>`;
    case 'deepseek':
      return `<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>${tool}<｜tool▁sep｜>${JSON.stringify(args)}<｜tool▁call▁end｜><｜tool▁calls▁end｜>`;
    case 'nemotron':
      return `<TOOLCALL>[${JSON.stringify({ name: tool, arguments: args })}]</TOOLCALL>`;
    case 'command-r7b':
      return `<|START_ACTION|>[\n    ${JSON.stringify({ tool_call_id: '0', tool_name: tool, parameters: args })}\n]<|END_ACTION|>`;
    case 'mistral':
      return `[TOOL_CALLS]${tool}[ARGS]${JSON.stringify(args)}`;
    case 'kimi-k2':
      return `<|tool_calls_section_begin|><|tool_call_begin|>functions.${tool}:0<|tool_call_argument_begin|>${JSON.stringify(args)}<|tool_call_end|><|tool_calls_section_end|>`;
    case 'lfm2':
      return `<|tool_call_start|>[${tool}(${Object.entries(args)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
        .join(', ')})]<|tool_call_end|>`;
    case 'jamba':
      return `<tool_calls>[${JSON.stringify({ name: tool, arguments: args })}]</tool_calls>`;
    case 'granite':
      return `<|tool_call|>[${JSON.stringify({ name: tool, arguments: args })}]`;
    case 'llama3-json':
      return JSON.stringify({ name: tool, parameters: args });
    case 'hermes':
      return `<tool_call>\n${JSON.stringify({ name: tool, arguments: args })}\n</tool_call>`;
    case 'cline':
      return `<${tool}>\n${entries.map(([k, v]) => `<${k}>${v}</${k}>\n`).join('')}</${tool}>`;
  }
}
