import type { AnswerMarkers, BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

const FUNCTIONARY_TAG: BodyForm = {
  format: 'functionary',
  recoveries: BODY_RECOVERIES,
  kind: 'named',
  open: '<function=',
  close: '</function>',
  syntax: Syntax.Json,
  header: /([A-Za-z_][\w.-]*)>\s*(?=[{"])/y,
};
const FUNCTIONARY_RECIPIENT: BodyForm = {
  format: 'functionary',
  recoveries: BODY_RECOVERIES,
  kind: 'named',
  open: '>>>',
  close: '',
  syntax: Syntax.Json,
  header: /([A-Za-z_][\w.-]*)[ \t]*\r?\n\s*(?=[{"])/y,
};

/** v3.2's first call when the prompt wrote its `>>>`: the reply begins with the recipient. */
const FUNCTIONARY_FIRST: BodyForm = { ...FUNCTIONARY_RECIPIENT, open: '' };

/**
 * After `<function=`: a name, `>` and a JSON object, or a JSON string holding one
 * (functionary's; Qwen's has tags).
 */
export const FUNCTION_JSON_HEAD = /[A-Za-z_][\w.-]*>\s*[{"]/y;
/** After `>>>`: a recipient and a newline (`all` is the model's text, not a call). */
const RECIPIENT_HEAD = /(?!all[ \t]*\r?\n)[A-Za-z_][\w.-]*[ \t]*\r?\n/y;

/**
 * MeetKai functionary's forms, as its templates write them: v3.1's `<function=name>{json}
 * </function>`, and v3.2's `>>>name` + a newline + a JSON object (`>>>all` is the model's
 * text). Both follow the reply's text or the last call in the same line, so each opens
 * anywhere its head (name, `>` and `{`; name and newline) confirms it.
 */
export const functionaryTag: BlockReader = {
  open: FUNCTIONARY_TAG.open,
  lineStart: FUNCTION_JSON_HEAD,
  midLine: FUNCTION_JSON_HEAD,
  reads: { body: FUNCTIONARY_TAG },
};
export const functionaryRecipient: BlockReader = {
  open: FUNCTIONARY_RECIPIENT.open,
  lineStart: RECIPIENT_HEAD,
  midLine: RECIPIENT_HEAD,
  reads: { body: FUNCTIONARY_RECIPIENT },
};

/**
 * functionary v3.2's template ends the prompt with `>>>`, so a reply that calls a tool at once
 * begins `name` + a newline + a JSON object. Read at the start of the input only, and only
 * with the `{` seen: a reply whose first line is one word is prose.
 */
const FIRST_CALL_HEAD = /(?!all[ \t]*\r?\n)[A-Za-z_][\w.-]*[ \t]*\r?\n\s*\{/y;
export const functionaryFirstCall: BlockReader = {
  open: FUNCTIONARY_FIRST.open,
  inputStart: FIRST_CALL_HEAD,
  reads: { body: FUNCTIONARY_FIRST },
};

/**
 * functionary v3.2's answer is a message to the recipient `all`: `>>>all` and a newline, or, as
 * the prompt ends with `>>>`, `all` and a newline at the reply's start. The header is structure
 * (as harmony's final channel is), not the answer's words. Plain text: its dialect's only.
 */
export const FUNCTIONARY_ANSWER: AnswerMarkers = {
  tokens: [`${FUNCTIONARY_RECIPIENT.open}all\n`],
  specialTokens: false,
  inputStart: 'all\n',
};

/** functionary v3.1's calls, the form both its templates' models read. */
export const FUNCTIONARY_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: { before: [FUNCTIONARY_TAG.open, SLOT.name, '>'], after: FUNCTIONARY_TAG.close },
  open: '',
  close: '',
  separator: '\n',
  trigger: FUNCTIONARY_TAG.open,
};
