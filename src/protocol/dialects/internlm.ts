import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { NAME_AND_ARGUMENTS, type WrittenForm } from './written.js';

/** Its opening: two special tokens. */
const OPEN_TOKENS = ['<|action_start|>', '<|plugin|>'];
const CLOSE = '<|action_end|>';

const INTERNLM: BodyForm = {
  format: 'internlm',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: OPEN_TOKENS.join(''),
  close: CLOSE,
  closeIsToken: true,
  syntax: Syntax.Json,
};

/**
 * InternLM 2 / 2.5 / 3's form, as its chat format and template write it: the reply's text,
 * then `<|action_start|><|plugin|>` + a newline + `{"name": …, "parameters": {…}}` (its
 * template writes `"arguments"`) + `<|action_end|>`, one call a block. All three markers are
 * special tokens: the block opens anywhere (with a decoder's blank between the first two too),
 * and a string cannot hold its close.
 * `<|action_start|><|interpreter|>` (code for its interpreter, no tool) stays text.
 */
export const internlm: BlockReader = {
  open: INTERNLM.open,
  openTokens: OPEN_TOKENS,
  anywhere: true,
  reads: { body: INTERNLM },
};

/** InternLM's calls as its template writes them: one block a call, one after another. */
export const INTERNLM_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '<' },
  call: {
    before: [`${INTERNLM.open}\n`, ...NAME_AND_ARGUMENTS.before],
    after: `${NAME_AND_ARGUMENTS.after}${INTERNLM.close}`,
  },
  open: '',
  close: '',
  separator: '',
  trigger: INTERNLM.open,
  tokens: [...OPEN_TOKENS, CLOSE],
};
