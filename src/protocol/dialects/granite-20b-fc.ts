import type { BlockReader, Confirmation } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { NAME_AND_ARGUMENTS, type WrittenForm } from './written.js';

/** What opens each call: plain text of its vocabulary, not a special token. */
const FUNCTION_CALL = '<function_call>';

const GRANITE_20B_FC: BodyForm = {
  format: 'granite-20b-fc',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: FUNCTION_CALL,
  // No close: the object's end ends the call (its template writes `<|endoftext|>` after the last).
  close: '',
  syntax: Syntax.Json,
  // A broken object runs no further than a line that opens the next call.
  cutBy: [`\n${FUNCTION_CALL}`],
};

/** A call object follows the opening (blanks between): prose naming the tag stays text. */
const BEGINS_OBJECT: Confirmation = { afterBlanks: /\{/, onlyBlanks: true };

/**
 * IBM granite-20b-functioncalling: each call `<function_call> {"name": …, "arguments": {…}}`,
 * one after another, each on its own line as its template writes them. The tag is no special
 * token: it opens where a `{` follows it, at a line start or after the reply's text.
 */
export const granite20bFc: BlockReader = {
  open: FUNCTION_CALL,
  lineStart: BEGINS_OBJECT,
  midLine: BEGINS_OBJECT,
  reads: { body: GRANITE_20B_FC },
};

/** Its calls as its template writes them: each after `<function_call> `, one a line. */
export const GRANITE_20B_FC_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: {
    before: [`${FUNCTION_CALL} `, ...NAME_AND_ARGUMENTS.before],
    after: NAME_AND_ARGUMENTS.after,
  },
  open: '',
  close: '',
  separator: '\n',
  trigger: FUNCTION_CALL,
};
