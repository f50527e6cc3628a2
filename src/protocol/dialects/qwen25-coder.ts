import type { BlockReader, Confirmation } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { NAME_AND_ARGUMENTS, type WrittenForm } from './written.js';

const QWEN25_CODER: BodyForm = {
  format: 'qwen25-coder',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '<tools>',
  close: '</tools>',
  // Plain tags, no special tokens: code in a JSON string may hold `</tools>`.
  closeIsToken: false,
  syntax: Syntax.Json,
};

/** JSON follows the opening (blanks between): `<tools>` in prose stays text. */
const BEGINS_JSON: Confirmation = { afterBlanks: /[{[]/, onlyBlanks: true };

/**
 * Qwen2.5-Coder prompted by vLLM's `tool_chat_template_qwen2_5_coder.jinja`: Hermes' call object,
 * or a list of them, in `<tools>` … `</tools>`, after the reply's text too. The tags are no
 * special tokens: the block opens where JSON follows `<tools>`.
 */
export const qwen25Coder: BlockReader = {
  open: QWEN25_CODER.open,
  lineStart: BEGINS_JSON,
  midLine: BEGINS_JSON,
  reads: { body: QWEN25_CODER },
};

/** Its calls as that template writes them: one object a block, each block on its lines. */
export const QWEN25_CODER_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: {
    before: [`${QWEN25_CODER.open}\n`, ...NAME_AND_ARGUMENTS.before],
    after: `${NAME_AND_ARGUMENTS.after}\n${QWEN25_CODER.close}`,
  },
  open: '',
  close: '',
  separator: '\n',
  trigger: QWEN25_CODER.open,
};
