import type { BlockReader, Confirmation } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { NAME_AND_ARGUMENTS, type WrittenForm } from './written.js';

const LONGCAT: BodyForm = {
  format: 'longcat',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '<longcat_tool_call>',
  close: '</longcat_tool_call>',
  // As Hermes' `</tool_call>`: code in a JSON string may hold the closing tag.
  closeIsToken: false,
  syntax: Syntax.Json,
};

/**
 * LongCat-Flash-Chat (Meituan): Hermes' call object, or a list of them, in
 * `<longcat_tool_call>` … `</longcat_tool_call>` (special tokens of its vocabulary: the block
 * opens anywhere). A `</longcat_tool_call>` inside a JSON string is the string's text.
 */
export const longcat: BlockReader = {
  open: LONGCAT.open,
  anywhere: true,
  reads: { body: LONGCAT },
};

/**
 * The body after `<longcat_tool_call>` begins as JSON (`{` or `[` after blanks). LongCat-Flash-Lite
 * writes a name and `<longcat_arg_key>` pairs in the same tags, a form no dialect reads: `auto`
 * leaves it text rather than fail it.
 */
const BEGINS_JSON: Confirmation = { afterBlanks: /[{[]/, onlyBlanks: true };

/** LongCat's block in `auto`: only where JSON follows the opening. */
export const longcatAuto: BlockReader = {
  ...longcat,
  midLine: BEGINS_JSON,
  lineStart: BEGINS_JSON,
};

/** Hermes' object in LongCat's own tags; no public template was found to say more. */
export const LONGCAT_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: {
    before: [LONGCAT.open, ...NAME_AND_ARGUMENTS.before],
    after: `${NAME_AND_ARGUMENTS.after}${LONGCAT.close}`,
  },
  open: '',
  close: '',
  separator: '\n',
  trigger: LONGCAT.open,
};
