import type { BlockReader, ThinkingTags } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { LOOKAHEAD } from '../lookahead.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

const OPEN = '[TOOL_CALLS]';
const ARGS = '[ARGS]';

/** Mistral 7B v0.3, Nemo, Small 3.0/3.1: `[TOOL_CALLS][{"name": …, "arguments": {…}}, …]`. */
const LIST: BodyForm = {
  format: 'mistral',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: OPEN,
  close: '',
  syntax: Syntax.Json,
};

/**
 * Mistral Small 3.2, Devstral, Magistral: `[TOOL_CALLS]name[ARGS]{…}` (or
 * `name[CALL_ID]id[ARGS]{…}`), one call per `[TOOL_CALLS]`, ended by its JSON object; the v11
 * tokenizer's `[TOOL_CALLS]name{…}` has no `[ARGS]`.
 */
const NAMED: BodyForm = {
  format: 'mistral',
  recoveries: BODY_RECOVERIES,
  kind: 'named',
  open: OPEN,
  close: '',
  syntax: Syntax.Json,
  header: new RegExp(
    String.raw`\s*([^\s[\]{}"]{1,${LOOKAHEAD.callName.value}}?)\s*(?:\[CALL_ID\][^[]{0,${LOOKAHEAD.callId.value}})?(?:\[ARGS\])?\s*(?=[{"])`,
    'y',
  ),
};

/**
 * Mistral's `[TOOL_CALLS]`, in both shapes its models write: a JSON list of calls, or a name,
 * `[ARGS]` and a JSON object. There is no closing marker: the call ends with its JSON value.
 * `[TOOL_CALLS]` is a special token: it opens a call anywhere in a line.
 */
export const mistral: BlockReader = {
  open: OPEN,
  anywhere: true,
  reads: { byFirstCharacter: [{ first: /[[{]/, body: LIST }, { body: NAMED }] },
};

/** Mistral Small 3.2's named calls, as its template writes them (less their `[CALL_ID]`). */
export const MISTRAL_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '<' },
  call: { before: [OPEN, SLOT.name, ARGS], after: '' },
  open: '',
  close: '',
  separator: '',
  trigger: OPEN,
  tokens: [OPEN, ARGS],
};

/** Magistral's thinking. */
export const MAGISTRAL_THINKING: ThinkingTags = ['[THINK]', '[/THINK]'];
