import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BodyReader } from '../body/reader.js';

const FORM: BodyForm = {
  format: 'kimi-k2',
  kind: 'sections',
  open: '<|tool_calls_section_begin|>',
  close: '<|tool_calls_section_end|>',
  closeIsToken: true,
  syntax: Syntax.Json,
  call: {
    open: '<|tool_call_begin|>',
    separator: '<|tool_call_argument_begin|>',
    close: '<|tool_call_end|>',
    // The call's id stands where the name does: `functions.get_weather:0`.
    nameOf: (header) => /^(?:functions\.)?(.*?)(?::\d+)?$/s.exec(header)?.[1]?.trim() ?? '',
  },
};

/**
 * Moonshot Kimi-K2's form: `<|tool_calls_section_begin|>`, per call `<|tool_call_begin|>`
 * `functions.name:0<|tool_call_argument_begin|>{…}<|tool_call_end|>`, then
 * `<|tool_calls_section_end|>` (special tokens). Its thinking is `<think>` … `</think>`.
 */
export const kimiK2: BlockReader = {
  open: FORM.open,
  anywhere: true,
  // Kimi-K2.5 writes its calls inside a <think> it never closes.
  endsThinking: true,
  stream: (sink, limits) => new BodyReader(FORM, sink, limits),
};
