import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { JAMBA } from './hermes.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { NAME_AND_ARGUMENTS, type WrittenForm } from './written.js';

const MINIMAX_M1: BodyForm = {
  format: 'minimax-m1',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '<tool_calls>',
  close: '</tool_calls>',
  // As Jamba's tag: code in a JSON string may hold `</tool_calls>`.
  closeIsToken: false,
  syntax: Syntax.Json,
  // Call objects one after another, one a line, no list around them.
  sequence: true,
};

/**
 * MiniMax-M1's form, as its template writes it: `<tool_calls>`, then one
 * `{"name": …, "arguments": {…}}` a line, then `</tool_calls>`.
 */
export const minimaxM1: BlockReader = {
  open: MINIMAX_M1.open,
  anywhere: true,
  reads: { body: MINIMAX_M1 },
};

/**
 * `<tool_calls>` in `auto`: Jamba's (and Hunyuan-A13B's) when a list follows it, MiniMax-M1's
 * when an object does (one call object is read the same by both).
 */
export const toolCallsAuto: BlockReader = {
  open: MINIMAX_M1.open,
  anywhere: true,
  reads: { byFirstCharacter: [{ first: /\[/, body: JAMBA }, { body: MINIMAX_M1 }] },
};

/** MiniMax-M1's calls as its template writes them: each object on a line of its own. */
export const MINIMAX_M1_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: { before: NAME_AND_ARGUMENTS.before, after: `${NAME_AND_ARGUMENTS.after}\n` },
  open: `${MINIMAX_M1.open}\n`,
  close: MINIMAX_M1.close,
  separator: '',
  trigger: MINIMAX_M1.open,
};
