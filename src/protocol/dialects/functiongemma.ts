import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BODY_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

/** The token FunctionGemma writes a string between (a special token of its vocabulary). */
const ESCAPE = '<escape>';

/** Gemma 4's body under FunctionGemma's own tokens. */
const FUNCTIONGEMMA: BodyForm = {
  format: 'functiongemma',
  recoveries: BODY_RECOVERIES,
  kind: 'named',
  open: '<start_function_call>',
  close: '<end_function_call>',
  closeIsToken: true,
  syntax: Syntax.TokenQuoted,
  quoteToken: ESCAPE,
  header: /\s*call:([A-Za-z_][\w.-]*)\s*(?=\{)/y,
};

/**
 * Google FunctionGemma (functiongemma-270m-it): `<start_function_call>call:NAME{key:<escape>v
 * <escape>,n:3}<end_function_call>`, Gemma 4's shape under its own special tokens: strings
 * between `<escape>` tokens (their text as written), keys bare, one call a block.
 */
export const functiongemma: BlockReader = {
  open: FUNCTIONGEMMA.open,
  anywhere: true,
  reads: { body: FUNCTIONGEMMA },
};

/** FunctionGemma's calls as Google's format writes them: one a block, back to back. */
const FUNCTIONGEMMA_TOKENS = [ESCAPE, FUNCTIONGEMMA.close, FUNCTIONGEMMA.open];
export const FUNCTIONGEMMA_WRITTEN: WrittenForm = {
  args: { kind: 'gemma', quote: ESCAPE, tokens: FUNCTIONGEMMA_TOKENS },
  call: { before: [`${FUNCTIONGEMMA.open}call:`, SLOT.name], after: FUNCTIONGEMMA.close },
  open: '',
  close: '',
  separator: '',
  trigger: FUNCTIONGEMMA.open,
  tokens: FUNCTIONGEMMA_TOKENS,
};
