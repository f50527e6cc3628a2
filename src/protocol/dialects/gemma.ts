import type { BlockReader, ThinkingTags } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

/** The token Gemma 4 writes a string between. */
const QUOTE = '<|"|>';

const GEMMA4: BodyForm = {
  format: 'gemma4',
  recoveries: BODY_RECOVERIES,
  kind: 'named',
  open: '<|tool_call>',
  close: '<tool_call|>',
  closeIsToken: true,
  syntax: Syntax.TokenQuoted,
  quoteToken: QUOTE,
  header: /\s*call:([A-Za-z_][\w.-]*)\s*(?=\{)/y,
};

/**
 * Google Gemma 4's form, as its chat template writes it: `<|tool_call>call:NAME{key:<|"|>v<|"|>,
 * n:3}<tool_call|>`, strings between `<|"|>` tokens (their text as written), keys bare; one
 * call a block.
 */
export const gemma4: BlockReader = {
  open: GEMMA4.open,
  anywhere: true,
  reads: { body: GEMMA4 },
};

/** Gemma 4's calls as its template writes them: one a block, strings between its quote token. */
const GEMMA4_TOKENS = [QUOTE, GEMMA4.close, GEMMA4.open];
export const GEMMA4_WRITTEN: WrittenForm = {
  args: { kind: 'gemma', quote: QUOTE, tokens: GEMMA4_TOKENS },
  call: { before: [`${GEMMA4.open}call:`, SLOT.name], after: GEMMA4.close },
  open: '',
  close: '',
  separator: '',
  trigger: GEMMA4.open,
  tokens: GEMMA4_TOKENS,
};

/** Gemma 4's thinking channel. */
export const GEMMA4_THINKING: ThinkingTags = ['<|channel>thought', '<channel|>'];
