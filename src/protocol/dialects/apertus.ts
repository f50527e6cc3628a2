import type { BlockReader, ThinkingTags } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

const APERTUS: BodyForm = {
  format: 'apertus',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '<|tools_prefix|>',
  close: '<|tools_suffix|>',
  closeIsToken: true,
  syntax: Syntax.Json,
  nameKeyed: true,
};

/**
 * Swiss AI Apertus' form, as its template writes it: `<|tools_prefix|>[{"get_weather":
 * {"city": "Paris"}}, …]<|tools_suffix|>`, a JSON list whose every object is one call, the
 * tool's name as its key and the arguments as its value. Both markers are special tokens:
 * the block opens anywhere, and a string cannot hold its close. Its thinking,
 * `<|inner_prefix|>` … `<|inner_suffix|>`, is read as thinking in every dialect.
 */
export const apertus: BlockReader = {
  open: APERTUS.open,
  anywhere: true,
  reads: { body: APERTUS },
};

/** Apertus' list as its template writes it: each call an object keyed by the tool's name. */
export const APERTUS_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '<' },
  call: { before: ['{', SLOT.nameJson, ': '], after: '}' },
  open: `${APERTUS.open}[`,
  close: `]${APERTUS.close}`,
  separator: ', ',
  trigger: APERTUS.open,
  tokens: [APERTUS.open, APERTUS.close],
};

/** Apertus' inner thoughts. */
export const APERTUS_THINKING: ThinkingTags = ['<|inner_prefix|>', '<|inner_suffix|>'];
