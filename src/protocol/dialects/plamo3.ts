import type { BlockReader, ThinkingTags } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

/** PLaMo 3's tags are `<|plamo:begin_NAME:plamo|>` … `<|plamo:end_NAME:plamo|>`. */
const begin = (name: string) => `<|plamo:begin_${name}:plamo|>`;
const end = (name: string) => `<|plamo:end_${name}:plamo|>`;

const SECTION = { open: begin('tool_requests'), close: end('tool_requests') };
const CALL = {
  open: `${begin('tool_request')}${begin('tool_name')}`,
  // The model writes the JSON constraint's control tokens after the arguments' tag.
  separator: `${end('tool_name')}${begin('tool_arguments')}<|plamo:constrain|>json<|plamo:msg|>`,
  close: `${end('tool_arguments')}${end('tool_request')}`,
};

const FORM: BodyForm = {
  format: 'plamo3',
  recoveries: BODY_RECOVERIES,
  kind: 'sections',
  ...SECTION,
  // Its tags are written as several tokens (vLLM's parser), not one: a string may hold them.
  closeIsToken: false,
  syntax: Syntax.Json,
  // The name stands alone between its tags.
  call: { ...CALL, name: /^(.*)$/s },
};

/**
 * PLaMo 3's form (Preferred Networks; vLLM's `plamo3` parser): `<|plamo:begin_tool_requests:plamo|>`,
 * per call `<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>name`
 * `<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>`
 * `{…}<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>`, then
 * `<|plamo:end_tool_requests:plamo|>`; the turn's `<|plamo:tag|>` after it stays text. No prose
 * writes `<|plamo:`: the block opens anywhere.
 */
export const plamo3: BlockReader = {
  open: FORM.open,
  anywhere: true,
  reads: { body: FORM },
};

/** PLaMo 3's calls, back to back inside the section, as vLLM's tests write them. */
export const PLAMO3_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: { before: [CALL.open, SLOT.name, CALL.separator], after: CALL.close },
  open: SECTION.open,
  close: SECTION.close,
  separator: '',
  trigger: SECTION.open,
};

/** PLaMo 3's thinking. */
export const PLAMO3_THINKING: ThinkingTags = [begin('think'), end('think')];
