import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { NAME_AND_ARGUMENTS, type WrittenForm } from './written.js';

/** The keys llama.cpp's generic object holds its calls under: a list, or one call. */
const CALLS_KEY = 'tool_calls';
const CALL_KEY = 'tool_call';

const GENERIC_JSON: BodyForm = {
  format: 'generic-json',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '{',
  openIsBody: true,
  close: '',
  syntax: Syntax.Json,
  envelope: [CALLS_KEY, CALL_KEY],
  // llama.cpp's newer generic writer puts `"content": ""` after the calls.
  envelopeEmpty: ['content'],
};

/** `{` then the envelope's key: `"tool_calls"` or `"tool_call"` (a `"response"` is text). */
const ENVELOPE_HEAD = /\s*"tool_calls?"\s*:/y;

/**
 * llama.cpp's generic form, which its constrained decoding forces on a model whose template it
 * knows no format of (common/chat.cpp): the reply is one JSON object, `{"tool_calls": [{"name":
 * …, "arguments": {…}, "id": "…"}, …]}` (or, without parallel calls, `{"tool_call": {…}}`), or
 * `{"response": "…"}` for an answer. The calls' object is read as calls (an `id` is no
 * argument); the answer's object is text as written. `auto` does not read it: replies hold
 * JSON data.
 */
export const genericJson: BlockReader = {
  open: GENERIC_JSON.open,
  lineStart: ENVELOPE_HEAD,
  reads: { body: GENERIC_JSON },
};

/** The object as llama.cpp's grammar has the model write it (parallel calls, a list). */
export const GENERIC_JSON_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: NAME_AND_ARGUMENTS,
  open: `{"${CALLS_KEY}": [`,
  close: ']}',
  separator: ', ',
  trigger: `{"${CALLS_KEY}": `,
};
