import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

const PYTHON_TAG: BodyForm = {
  format: 'llama3-json',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '<|python_tag|>',
  close: '',
  separator: ';',
  syntax: Syntax.Json,
};
/**
 * Llama 3.1's built-in tools (code_interpreter, brave_search, wolfram_alpha), as its template
 * writes them after `<|python_tag|>`: one Python call, `name.call(k="v")`, of the tool `name`.
 */
const PYTHON_TAG_BUILT_IN: BodyForm = {
  format: 'llama3-json',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '<|python_tag|>',
  close: '',
  syntax: Syntax.Python,
  nameSuffix: '.call',
};
const BARE_JSON: BodyForm = {
  format: 'llama3-json',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '{"name"',
  openIsBody: true,
  close: '',
  separator: ';',
  syntax: Syntax.Json,
  bareObject: true,
  argumentsKey: 'parameters',
};

/**
 * Llama 3.1 / 3.2 / 3.3's JSON calls: after `<|python_tag|>` (a special token, anywhere; a name
 * right after it is a built-in tool's Python call, `brave_search.call(query="…")`), or
 * a bare `{"name": …, "parameters": {…}}` object at a line start, as their templates ask for
 * (and as Qwen models write when they drop `<tool_call>`). Ended by the JSON value, unless `;`
 * joins another call object on the same line (`{…}; {…}`: Llama 3.2's several calls, as vLLM
 * and SGLang read them). A bare object is a call only with its arguments: `{"name": "Ada",
 * "age": 3}` is data.
 */
export const llama3PythonTag: BlockReader = {
  open: PYTHON_TAG.open,
  anywhere: true,
  // A name after the tag is a built-in tool's Python call; anything else, the JSON object.
  reads: {
    byFirstCharacter: [{ first: /[A-Za-z_]/, body: PYTHON_TAG_BUILT_IN }, { body: PYTHON_TAG }],
  },
};
export const llama3BareJson: BlockReader = {
  open: BARE_JSON.open,
  reads: { body: BARE_JSON },
};

/**
 * Llama 3.x's calls as its template writes them: the bare object, one a reply. A grammar has
 * the model write `<|python_tag|>` before it (a special token to engage on; the reader takes
 * both).
 */
export const LLAMA3_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '<' },
  call: { before: ['{"name": ', SLOT.nameJson, ', "parameters": '], after: '}' },
  open: '',
  close: '',
  separator: '',
  maxCalls: 1,
  trigger: PYTHON_TAG.open,
  lead: { generated: PYTHON_TAG.open },
};
