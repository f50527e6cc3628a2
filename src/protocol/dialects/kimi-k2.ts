import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES, missingWrapper } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

const SECTION = { open: '<|tool_calls_section_begin|>', close: '<|tool_calls_section_end|>' };
const CALL = {
  open: '<|tool_call_begin|>',
  separator: '<|tool_call_argument_begin|>',
  close: '<|tool_call_end|>',
};
/** What the call's id is made of around the name: `functions.get_weather:0`. */
const ID_PREFIX = 'functions.';

/** The family's: its JSON's, and its calls' without their section. */
export const KIMI_K2_RECOVERIES = {
  ...BODY_RECOVERIES,
  'missing-wrapper': missingWrapper(`write the calls inside ${SECTION.open} … ${SECTION.close}`),
};

const FORM: BodyForm = {
  format: 'kimi-k2',
  recoveries: KIMI_K2_RECOVERIES,
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

const BARE: BodyForm = {
  ...FORM,
  open: CALL.open,
  openIsBody: true,
  missingWrapper: KIMI_K2_RECOVERIES['missing-wrapper'],
};

/**
 * Kimi-K2's calls without their `<|tool_calls_section_begin|>`, every other token written
 * (`<|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>{…}<|tool_call_end|>` …
 * `<|tool_calls_section_end|>`), as Kimi-K2 models write them at times: read as the section,
 * each call with a `missing-wrapper` warning. Special tokens too: it opens anywhere.
 */
export const kimiK2Bare: BlockReader = {
  open: BARE.open,
  anywhere: true,
  endsThinking: true,
  reads: { body: BARE },
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
  tokens: [...Object.values(SECTION), ...Object.values(CALL)],
};
