import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

const SECTION = { open: '<|tool_calls_section_begin|>', close: '<|tool_calls_section_end|>' };
const CALL = {
  open: '<|tool_call_begin|>',
  separator: '<|tool_call_argument_begin|>',
  close: '<|tool_call_end|>',
};
/** What the call's id is made of around the name: `functions.get_weather:0`. */
const ID_PREFIX = 'functions.';

const FORM: BodyForm = {
  format: 'kimi-k2',
  recoveries: BODY_RECOVERIES,
  kind: 'sections',
  ...SECTION,
  closeIsToken: true,
  syntax: Syntax.Json,
  call: {
    ...CALL,
    // The call's id stands where the name does: `functions.get_weather:0`.
    name: /^(?:functions\.)?(.*?)(?::\d+)?$/s,
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
  reads: { body: FORM },
};

/** Kimi-K2's calls as its template writes them, each named by its id (`functions.name:0`). */
export const KIMI_K2_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '<' },
  call: {
    before: [`${CALL.open}${ID_PREFIX}`, SLOT.name, `:0${CALL.separator}`],
    after: CALL.close,
  },
  open: SECTION.open,
  close: SECTION.close,
  separator: '',
  trigger: SECTION.open,
};
