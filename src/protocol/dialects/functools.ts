import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { NAME_AND_ARGUMENTS, type WrittenForm } from './written.js';

const FUNCTOOLS: BodyForm = {
  format: 'functools',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: 'functools',
  close: '',
  syntax: Syntax.Json,
};

/**
 * After `functools`: a list whose first item is an object. The word is Python's module, not a
 * special token (FireFunction v2 is a Llama 3 tokenizer), so `functools.partial`, `import
 * functools` and `functools[0]` stay text.
 */
const LIST_HEAD = /[ \t]*\[\s*\{/y;

/**
 * FireFunction v2's and Phi-4-mini's form: `functools[{"name": …, "arguments": {…}}, …]`, the
 * calls as a JSON list after the word `functools`, with no closing marker (the list's end ends
 * it). FireFunction's template writes it after the reply's text (`text functools[…]`), so it
 * opens mid-line where its list confirms it.
 */
export const functools: BlockReader = {
  open: FUNCTOOLS.open,
  lineStart: LIST_HEAD,
  midLine: LIST_HEAD,
  wordStart: true,
  reads: { body: FUNCTOOLS },
};

const LIST_OPEN = `${FUNCTOOLS.open}[`;

/** FireFunction v2's list as its template writes it, after the reply's text and a blank. */
export const FUNCTOOLS_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: NAME_AND_ARGUMENTS,
  open: LIST_OPEN,
  close: ']',
  separator: ', ',
  trigger: LIST_OPEN,
  lead: { rendered: ' ' },
};
