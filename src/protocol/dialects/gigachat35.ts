import type { BlockReader } from '../block.js';
import { bareInvokeReader, invokeWritten, markedInvokeForm } from './anthropic-xml.js';

/** The marker GigaChat 3.5's GCML tags begin with (U+FF5C, the full-width bar, on both sides). */
const GCML = '｜GCML｜';
const BLOCK = 'tool_calls';

const FORM = markedInvokeForm('gigachat35', GCML, BLOCK);
export const GIGACHAT35_RECOVERIES = FORM.recoveries;

/**
 * GigaChat 3.5's GCML (Sber; vLLM's `gigachat35` tool parser): DeepSeek's DSML under its own
 * marker, `<｜GCML｜tool_calls>`, per call `<｜GCML｜invoke name="f">` with
 * `<｜GCML｜parameter name="k" string="true">v</｜GCML｜parameter>` values, then
 * `</｜GCML｜invoke>` and `</｜GCML｜tool_calls>` (special tokens: the block opens anywhere).
 * `string="false"` marks a value written as JSON; values are read as written and a schema
 * types them, as DSML's.
 */
export const gigachat35: BlockReader = {
  open: FORM.wrapper?.open ?? '',
  anywhere: true,
  reads: { markup: FORM },
};

/** A GCML call with no `<｜GCML｜tool_calls>` around it, as DSML's: a call, with `missing-wrapper`. */
export const gigachat35Bare = bareInvokeReader(FORM);

/**
 * Written as DSML's template writes its calls, one tag a line (GigaChat 3.5's own template,
 * llama.cpp's `GigaChat3.5.jinja`, does not render with @huggingface/jinja as it is).
 */
export const GIGACHAT35_WRITTEN = invokeWritten(`<${GCML}${BLOCK}>`, `</${GCML}${BLOCK}>`, GCML);
