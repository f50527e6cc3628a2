import type { AnswerMarkers, BlockReader, ThinkingTags } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { recoveryWith } from '../recoveries.js';
import { FUNCTION_JSON_HEAD } from './functionary.js';
import { BODY_RECOVERIES, missingWrapper } from './recoveries.js';
import { jsonCallList, NAME_AND_ARGUMENTS, SLOT, type WrittenForm } from './written.js';

/** A JSON body of calls between two markers: a call object, or a list of them. */
const jsonCalls = (format: BodyForm['format'], open: string, close: string): BodyForm => ({
  format,
  kind: 'calls',
  open,
  close,
  // Plain tags can stand inside a JSON string (code); special tokens cannot.
  closeIsToken: close.startsWith('<|'),
  syntax: Syntax.Json,
  recoveries: BODY_RECOVERIES,
});

/** Hermes' call tag (Granite 3.1 writes its list in it too). */
const TOOL_CALL = '<tool_call>';
/** What closes a call written as `<function…>` (functionary's form, in Hermes' reading). */
const FUNCTION_CLOSE = '</function>';

/** Hermes' body, which `auto` reads in `<tool_call>` when it begins with JSON. */
export const HERMES = jsonCalls('hermes', TOOL_CALL, '</tool_call>');

/**
 * Hermes' form (also Qwen2.5, Qwen3, many fine-tunes): `<tool_call>{"name": …, "arguments":
 * {…}}</tool_call>`, one call a block, or a JSON array of them. `arguments` may be a JSON
 * string holding the object. A `</tool_call>` inside a JSON string is the string's text.
 */
export const hermes: BlockReader = {
  open: HERMES.open,
  anywhere: true,
  reads: { body: HERMES },
};

/** The family's: its JSON's, and `missing-wrapper` (each wrapper not its own says which). */
export const HERMES_RECOVERIES = {
  ...BODY_RECOVERIES,
  'missing-wrapper': missingWrapper(
    `write the call inside ${HERMES.open} … ${HERMES.close}{instead}`,
  ),
};
/** The `missing-wrapper` row of a form written in `instead` of the family's wrapper. */
const notItsWrapper = (instead: string) =>
  recoveryWith(HERMES_RECOVERIES['missing-wrapper'], { instead });

/** After a wrapper: blanks, then a call object whose first key is "name" (as llama.cpp asks). */
const CALL_OBJECT_HEAD = /\s*\{\s*"name"/y;

/**
 * Hermes' call object in one of the tags Qwen 2.5 and Hermes models put it in instead of
 * `<tool_call>` (the openings llama.cpp's Hermes 2 Pro parser accepts): `<function_call>`,
 * `<tools>`, `<response>`, `<json>`, `<xml>`, `<JSON>`, `<tool>`. None is a special token: it
 * opens at a line start (in a fence that holds only calls too), or mid-line with `midLine`,
 * and only where a `{"name"` follows it; an object is a call only with its `arguments` (or
 * `parameters`), and each call says `missing-wrapper`.
 */
function hermesWrappedIn(tag: string, midLine: boolean): BlockReader {
  const form: BodyForm = {
    ...jsonCalls('hermes', `<${tag}>`, `</${tag}>`),
    // Outside its own wrapper an object is a call only with its arguments: `{"name": "Ada"}` is data.
    bareObject: true,
    missingWrapper: notItsWrapper(`, not <${tag}>`),
  };
  return {
    open: form.open,
    lineStart: CALL_OBJECT_HEAD,
    ...(midLine && { midLine: CALL_OBJECT_HEAD }),
    reads: { body: form },
  };
}

/** The wrappers `auto` reads too: none of them holds anything but a call in the family's use. */
const AUTO_WRAPPERS = ['function_call', 'response', 'json', 'xml', 'JSON'];
/**
 * Read by `hermes` alone: `<tools>` is where Hermes' and Qwen's own prompts list the tools (a
 * definition `{"name": …, "parameters": {…}}` would be a call), and `<tool>` is the tagcall
 * protocol's in `auto`, whose JSON form reads the same object.
 */
const HERMES_ONLY_WRAPPERS = ['tools', 'tool'];

export const hermesWrapped: readonly BlockReader[] = [
  ...AUTO_WRAPPERS,
  ...HERMES_ONLY_WRAPPERS,
].map((tag) => hermesWrappedIn(tag, true));
export const hermesWrappedAuto: readonly BlockReader[] = AUTO_WRAPPERS.map((tag) =>
  hermesWrappedIn(tag, false),
);

const HERMES_FUNCTION_TAG: BodyForm = {
  format: 'hermes',
  recoveries: BODY_RECOVERIES,
  kind: 'named',
  open: '<function=',
  close: FUNCTION_CLOSE,
  syntax: Syntax.Json,
  header: /([A-Za-z_][\w.-]*)>\s*(?=[{"])/y,
  missingWrapper: notItsWrapper(', not <function=…>'),
};

/**
 * `<function=name>{arguments}</function>`: what Qwen 2.5 writes when it drops `<tool_call>`
 * (functionary v3.1's form, which the `functionary` dialect reads as its own, without a
 * warning). In `hermes` it is Hermes' call, with `missing-wrapper`; `auto` leaves it alone, as
 * it does functionary's forms.
 */
export const hermesFunctionTag: BlockReader = {
  open: HERMES_FUNCTION_TAG.open,
  lineStart: FUNCTION_JSON_HEAD,
  midLine: FUNCTION_JSON_HEAD,
  reads: { body: HERMES_FUNCTION_TAG },
};

const HERMES_FUNCTION_NAME: BodyForm = {
  format: 'hermes',
  recoveries: BODY_RECOVERIES,
  kind: 'named',
  open: '<function name="',
  close: FUNCTION_CLOSE,
  syntax: Syntax.Json,
  header: /([A-Za-z_][\w.-]*)">\s*(?=[{"])/y,
  missingWrapper: notItsWrapper(', not <function name="…">'),
};
const FUNCTION_NAME_HEAD = /[A-Za-z_][\w.-]*">\s*[{"]/y;

/** `<function name="name">{arguments}</function>`, the other named form llama.cpp reads. */
function hermesFunctionNamed(midLine: boolean): BlockReader {
  return {
    open: HERMES_FUNCTION_NAME.open,
    lineStart: FUNCTION_NAME_HEAD,
    ...(midLine && { midLine: FUNCTION_NAME_HEAD }),
    reads: { body: HERMES_FUNCTION_NAME },
  };
}
export const hermesFunctionName = hermesFunctionNamed(true);
export const hermesFunctionNameAuto = hermesFunctionNamed(false);

const HERMES_BARE: BodyForm = {
  format: 'hermes',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '{',
  openIsBody: true,
  close: '',
  syntax: Syntax.Json,
  bareObject: true,
  missingWrapper: notItsWrapper(''),
  // A broken object runs no further than a line that opens Hermes' own block.
  cutBy: ['\n<tool_call>'],
};

/**
 * The call object with no wrapper, on a line of its own or as a fence's first content (```json,
 * ```xml, ```): what Qwen 2.5 writes when it drops `<tool_call>`. A call only with its
 * `arguments` (or `parameters`): `{"name": "Ada", "age": 3}` is data. `auto` does not read it
 * (replies show JSON data, fenced or not).
 */
export const hermesBare: BlockReader = {
  open: HERMES_BARE.open,
  lineStart: /\s*"name"/y,
  inFence: true,
  reads: { body: HERMES_BARE },
};

const NEMOTRON = jsonCalls('nemotron', '<TOOLCALL>', '</TOOLCALL>');

/** NVIDIA Nemotron's form: `<TOOLCALL>[{"name": …, "arguments": {…}}, …]</TOOLCALL>`. */
export const nemotron: BlockReader = {
  open: NEMOTRON.open,
  anywhere: true,
  reads: { body: NEMOTRON },
};

/** Jamba's body (a list; MiniMax-M1's `auto` reader shares its tag). */
export const JAMBA = jsonCalls('jamba', '<tool_calls>', '</tool_calls>');

/** AI21 Jamba's form: `<tool_calls>[{"name": …, "arguments": {…}}]</tool_calls>`. */
export const jamba: BlockReader = {
  open: JAMBA.open,
  anywhere: true,
  reads: { body: JAMBA },
};

const COMMAND_R7B = jsonCalls('command-r7b', '<|START_ACTION|>', '<|END_ACTION|>');

/**
 * Cohere Command R7B's form: `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": …,
 * "parameters": {…}}, …]<|END_ACTION|>`.
 */
export const commandR7b: BlockReader = {
  open: COMMAND_R7B.open,
  anywhere: true,
  reads: { body: COMMAND_R7B },
};

const GRANITE = jsonCalls('granite', '<|tool_call|>', '');
const GRANITE_3_1 = jsonCalls('granite', TOOL_CALL, '');

/** IBM Granite's form: `<|tool_call|>[{"name": …, "arguments": {…}}]`, ended by its JSON. */
export const granite: BlockReader = {
  open: GRANITE.open,
  anywhere: true,
  reads: { body: GRANITE },
};

/** Granite 3.1's: the same list after `<tool_call>` (what llama.cpp's Granite reader takes). */
export const granite31: BlockReader = {
  open: GRANITE_3_1.open,
  anywhere: true,
  reads: { body: GRANITE_3_1 },
};

/** Hermes' calls as Qwen's template writes them: one object a block, each block on its lines. */
export const HERMES_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: {
    before: [`${HERMES.open}\n`, ...NAME_AND_ARGUMENTS.before],
    after: `${NAME_AND_ARGUMENTS.after}\n${HERMES.close}`,
  },
  open: '',
  close: '',
  separator: '\n',
  trigger: HERMES.open,
};

export const NEMOTRON_WRITTEN = jsonCallList(NEMOTRON.open, NEMOTRON.close, '');
export const JAMBA_WRITTEN = jsonCallList(JAMBA.open, JAMBA.close, '');
/** A string escapes `<`, as in the forms whose markers are special tokens. */
export const GRANITE_WRITTEN: WrittenForm = {
  ...jsonCallList(GRANITE.open, GRANITE.close, '<'),
  tokens: [GRANITE.open],
};

/** Command R7B's list as its template writes it: each call on a line of its own, indented. */
export const COMMAND_R7B_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '<' },
  call: {
    before: ['{"tool_call_id": "0", "tool_name": ', SLOT.nameJson, ', "parameters": '],
    after: '}',
  },
  open: `${COMMAND_R7B.open}[\n    `,
  close: `\n]${COMMAND_R7B.close}`,
  separator: ',\n    ',
  trigger: COMMAND_R7B.open,
  tokens: [COMMAND_R7B.open, COMMAND_R7B.close],
};

/** Command R7B's thinking. */
export const COMMAND_R7B_THINKING: ThinkingTags = ['<|START_THINKING|>', '<|END_THINKING|>'];

/** Command R7B's answer: `<|START_RESPONSE|>…<|END_RESPONSE|>`. */
export const COMMAND_R7B_ANSWER: AnswerMarkers = {
  tokens: ['<|START_RESPONSE|>', '<|END_RESPONSE|>'],
  specialTokens: true,
};

/**
 * Granite 3.3's answer in thinking mode, as its template asks: `<think>…</think><response>…
 * </response>`. Plain tags, not special tokens: read in the `granite` dialect only.
 */
export const GRANITE_ANSWER: AnswerMarkers = {
  tokens: ['<response>', '</response>'],
  specialTokens: false,
};
