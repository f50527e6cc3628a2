import type { BlockReader } from '../block.js';
import { bareInvokeReader, invokeWritten, markedInvokeForm } from './anthropic-xml.js';

/**
 * DeepSeek V4.1's marker: V4's `｜DSML｜` and the space its encoder writes before each tag's
 * name (`tool_calls_block_name = " calls"`, `" invoke"`, `" parameter"`: tokens of its own).
 */
const MARKER = '｜DSML｜ ';
const BLOCK = 'calls';

const FORM = markedInvokeForm('deepseek-v41', MARKER, BLOCK);
export const DEEPSEEK_V41_RECOVERIES = FORM.recoveries;

/**
 * DeepSeek V4.1's spaced DSML (SGLang's and vLLM's `deepseekv41`): `<｜DSML｜ calls>`, per call
 * `<｜DSML｜ invoke name="f">` with `<｜DSML｜ parameter name="k" string="true">v</｜DSML｜
 * parameter>` values, `</｜DSML｜ invoke>`, `</｜DSML｜ calls>`: V4's calls with a space after
 * the marker. Special text of its vocabulary: the block opens anywhere. Values as written,
 * `string="false"` marking JSON a schema types, as `deepseek-dsml`'s.
 */
export const deepseekV41: BlockReader = {
  open: FORM.wrapper?.open ?? '',
  anywhere: true,
  reads: { markup: FORM },
};

/** A V4.1 call with no `<｜DSML｜ calls>` around it: a call, with `missing-wrapper`. */
export const deepseekV41Bare = bareInvokeReader(FORM);

/**
 * As DeepSeek's V4.1 encoder (`encoding/encoding.py`, no Jinja template is shipped) writes
 * calls: the block and each tag on a line of its own.
 */
export const DEEPSEEK_V41_WRITTEN = invokeWritten(
  `<${MARKER}${BLOCK}>`,
  `</${MARKER}${BLOCK}>`,
  MARKER,
);
