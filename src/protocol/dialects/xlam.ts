import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { NAME_AND_ARGUMENTS, type WrittenForm } from './written.js';

const XLAM: BodyForm = {
  format: 'xlam',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '[',
  openIsBody: true,
  close: '',
  syntax: Syntax.Json,
  // A list of objects with a "name" is data as often as calls: each needs its arguments.
  bareObject: true,
};

/** `[` then a first object whose first key is `name` (in either quote). */
const CALL_LIST_HEAD = /\s*\{\s*(?:"name"|'name')\s*:/y;

/**
 * Salesforce xLAM-2's form: the reply is a JSON list of calls, `[{"name": …, "arguments":
 * {…}}, …]`, with no marker around it, as its template writes a turn that calls; models
 * also put it in a ```json fence, or after their thinking. It opens where `[` and an object
 * whose first key is `name` begin (a line start, mid-line, or a fence's first line), and each
 * object is a call only with its `arguments` (or `parameters`). `auto` does not read it: a
 * reply showing JSON data would be a call.
 */
export const xlam: BlockReader = {
  open: XLAM.open,
  lineStart: CALL_LIST_HEAD,
  midLine: CALL_LIST_HEAD,
  inFence: true,
  reads: { body: XLAM },
};

/** xLAM's list as its template writes it; a lazy grammar engages on `[` and the first `"name"`. */
export const XLAM_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: NAME_AND_ARGUMENTS,
  open: XLAM.open,
  close: ']',
  separator: ', ',
  trigger: `${XLAM.open}{"name": `,
};
