import type { BlockReader } from './block.js';
import { createJsonCallStream, type JsonCallForm } from './json-call-stream.js';

const FORM: JsonCallForm = {
  format: 'kimi-k2',
  wrapper: { open: '<|tool_calls_section_begin|>', close: '<|tool_calls_section_end|>' },
  call: {
    open: '<|tool_call_begin|>',
    separator: '<|tool_call_argument_begin|>',
    close: '<|tool_call_end|>',
  },
  // The call's id stands where the name does: `functions.get_weather:0`.
  nameOf: (header) => /^(?:functions\.)?(.*?)(?::\d+)?$/s.exec(header)?.[1]?.trim() ?? '',
};

/**
 * Moonshot Kimi-K2's form: `<|tool_calls_section_begin|>`, per call `<|tool_call_begin|>`
 * `functions.name:0<|tool_call_argument_begin|>{…}<|tool_call_end|>`, then
 * `<|tool_calls_section_end|>` (special tokens). Its thinking is `<think>` … `</think>`.
 */
export const kimiK2: BlockReader = {
  open: FORM.wrapper.open,
  anywhere: true,
  stream: (sink, limits) => createJsonCallStream(FORM, sink, limits),
};
