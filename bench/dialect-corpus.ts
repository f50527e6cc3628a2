/**
 * The benchmark corpus with its calls written in another model's format: each `<tool>` block
 * that parses is replaced by the same call as Qwen3-Coder's or Hermes' chat template writes
 * it, the prose around it left as it is. For comparing a dialect's cost with `<tool>`'s.
 */
import { type JsonValue, parse, type ToolCall } from 'tagcall/protocol';

export type BenchDialect = 'qwen3-coder' | 'hermes';

/** A value as Qwen3-Coder's template writes it: text as it is, objects and lists as JSON. */
const qwenValue = (v: JsonValue) => (typeof v === 'string' ? v : JSON.stringify(v));

function render(call: ToolCall, dialect: BenchDialect): string {
  if (dialect === 'hermes')
    return `<tool_call>\n${JSON.stringify({ name: call.toolName, arguments: call.arguments })}\n</tool_call>`;
  const parameters = Object.entries(call.arguments)
    .map(([key, value]) => `<parameter=${key}>\n${qwenValue(value)}\n</parameter>\n`)
    .join('');
  return `<tool_call>\n<function=${call.toolName}>\n${parameters}</function>\n</tool_call>`;
}

export function inDialect(messages: readonly string[], dialect: BenchDialect): string[] {
  return messages.map((message) => {
    let out = '';
    let at = 0;
    for (const call of parse(message).calls) {
      out += message.slice(at, call.start) + render(call, dialect);
      at = call.end;
    }
    return out + message.slice(at);
  });
}
