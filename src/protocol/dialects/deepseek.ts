import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { markdownFence } from './fence.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

const CALLS = { open: '<｜tool▁calls▁begin｜>', close: '<｜tool▁calls▁end｜>' };
const CALL = {
  open: '<｜tool▁call▁begin｜>',
  separator: '<｜tool▁sep｜>',
  close: '<｜tool▁call▁end｜>',
};

const FORM: BodyForm = {
  format: 'deepseek',
  recoveries: BODY_RECOVERIES,
  kind: 'sections',
  ...CALLS,
  closeIsToken: true,
  syntax: Syntax.Json,
  call: {
    ...CALL,
    // V3 and R1 write the constant `function` before the separator, then the name on its own
    // line and the arguments in a ```json fence.
    name: /^(?!function$)([\s\S]*)$/,
    nameOnNextLine: true,
    fence: markdownFence('```json'),
  },
};

/**
 * DeepSeek's form with its full-width special tokens: V3.1 writes `<｜tool▁calls▁begin｜>`
 * `<｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}<｜tool▁call▁end｜>` … `<｜tool▁calls▁end｜>`; V3 and R1
 * write `function<｜tool▁sep｜>name` and a fenced JSON body. Both are read.
 */
export const deepseek: BlockReader = {
  open: FORM.open,
  anywhere: true,
  reads: { body: FORM },
};

/**
 * The shortened `<｜tool▁calls｜>` some DeepSeek-R1 distills write in place of both
 * `<｜tool▁calls▁begin｜>` and the first `<｜tool▁call▁begin｜>` (llama.cpp reads it too): the
 * same calls, the first one's header right after it.
 */
export const deepseekShortened: BlockReader = {
  open: '<｜tool▁calls｜>',
  anywhere: true,
  reads: { body: { ...FORM, open: '<｜tool▁calls｜>', openIsFirstCall: true } },
};

/** DeepSeek V3.1's calls as its template writes them (the JSON as the request gave it). */
export const DEEPSEEK_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '<' },
  call: { before: [CALL.open, SLOT.name, CALL.separator], after: CALL.close },
  open: CALLS.open,
  close: CALLS.close,
  separator: '',
  trigger: CALLS.open,
  tokens: [...Object.values(CALLS), ...Object.values(CALL)],
};
