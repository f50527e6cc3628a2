import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { NAME_AND_ARGUMENTS, type WrittenForm } from './written.js';

/** The head of GigaChat 3's `function call` turn, as its template writes it after the reply. */
const MESSAGE_SEP = '<|message_sep|>';
const ROLE_SEP = '<|role_sep|>';
const ROLE = `\n\nfunction call${ROLE_SEP}\n`;
const GIGACHAT_3_HEAD = `${MESSAGE_SEP}${ROLE}`;

const GIGACHAT_3: BodyForm = {
  format: 'gigachat',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: GIGACHAT_3_HEAD,
  // The turn's own close (`<|message_sep|>`) is a stop token servers strip: the object's end ends it.
  close: '',
  syntax: Syntax.Json,
};

const GIGACHAT_3_1: BodyForm = { ...GIGACHAT_3, open: '<|function_call|>' };

/**
 * GigaChat 3 (Sber): the reply's text ends its turn with `<|message_sep|>`, and the call is a
 * turn of the `function call` role: `<|message_sep|>\n\nfunction call<|role_sep|>\n` then
 * `{"name": …, "arguments": {…}}`, one call a reply. `<|message_sep|>` is a special token: the
 * block opens anywhere. Any other role after it (`assistant`, `user`) stays text.
 */
export const gigachat3: BlockReader = {
  open: MESSAGE_SEP,
  anywhere: true,
  // The turn `<|message_sep|>` ends is followed by the `function call` role's head. The block is
  // found by its first token alone: the head spans lines, and a line's text is decided at its end.
  midLine: ROLE,
  lineStart: ROLE,
  reads: { body: GIGACHAT_3 },
};

/** GigaChat 3.1's: the same object after its `<|function_call|>` token. */
export const gigachat31: BlockReader = {
  open: GIGACHAT_3_1.open,
  anywhere: true,
  reads: { body: GIGACHAT_3_1 },
};

/** GigaChat 3's call as its template writes it: a `function call` turn after the reply's text, one a reply. */
export const GIGACHAT_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '<' },
  call: {
    before: [GIGACHAT_3_HEAD, ...NAME_AND_ARGUMENTS.before],
    after: NAME_AND_ARGUMENTS.after,
  },
  open: '',
  close: '',
  separator: '',
  maxCalls: 1,
  trigger: MESSAGE_SEP,
  tokens: [MESSAGE_SEP, ROLE_SEP, GIGACHAT_3_1.open],
};
