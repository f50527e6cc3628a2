import type { BlockReader } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { invokeForm, invokeWritten } from './anthropic-xml.js';
import { BODY_RECOVERIES } from './recoveries.js';

const OPEN = '<dots_function_call>';
const CLOSE = '</dots_function_call>';

/** Anthropic's `<invoke>` calls in dots' own block, as MiniMax-M2's are in its. */
const DOTS = invokeForm('dots', OPEN, CLOSE);
export const DOTS_RECOVERIES = { ...DOTS.recoveries, ...BODY_RECOVERIES };

/** The block's other body, which vLLM's and SGLang's readers take too: Hermes' call object. */
const DOTS_JSON: BodyForm = {
  format: 'dots',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: OPEN,
  close: CLOSE,
  // Plain text in a JSON string (code) may hold the closing tag.
  closeIsToken: false,
  syntax: Syntax.Json,
};

/**
 * rednote's dots.llm: `<dots_function_call>` then `<invoke name="f"><parameter name="k">v
 * </parameter></invoke>` calls, then `</dots_function_call>`; values as written, a tool's
 * schema types them. A block whose body begins with `{` holds a `{"name": …, "arguments": …}`
 * object instead. The opening is no word prose writes: the block opens anywhere.
 */
export const dots: BlockReader = {
  open: OPEN,
  anywhere: true,
  reads: { byFirstCharacter: [{ markup: DOTS }, { first: /\{/, body: DOTS_JSON }] },
};

/** No public template was found: written as MiniMax-M2's template writes its invokes. */
export const DOTS_WRITTEN = invokeWritten(OPEN, CLOSE);
