import type { BlockReader, ThinkingTags } from '../block.js';
import type { MarkupForm } from '../markup/form.js';
import { QWEN3_CALL_RECOVERIES, QWEN3_CODER_FORM, qwenWritten } from './qwen3-coder.js';

/** Its calls are Qwen3-Coder's: so are their recoveries. */
export const SEED_OSS_RECOVERIES = QWEN3_CALL_RECOVERIES;

const OPEN = '<seed:tool_call>';
const CLOSE = '</seed:tool_call>';

const FORM: MarkupForm = {
  ...QWEN3_CODER_FORM,
  format: 'seed-oss',
  wrapper: { open: OPEN, close: CLOSE },
  // Its template writes a value right after its opening tag, with no newline to drop.
  text: 'verbatim',
  empty: `a ${OPEN} block holds no <function=name>`,
};

/**
 * ByteDance Seed-OSS's form, as its chat template writes it: Qwen3-Coder's `<function=…>` and
 * `<parameter=…>` inside `<seed:tool_call>` … `</seed:tool_call>` (special tokens), values as
 * written. Its thinking, `<seed:think>` … `</seed:think>`, is read as thinking in every dialect.
 */
export const seedOss: BlockReader = {
  open: OPEN,
  anywhere: true,
  reads: { markup: FORM },
};

/** Its calls as its template writes them: Qwen3-Coder's tags, each value as it is. */
export const SEED_OSS_WRITTEN = qwenWritten(OPEN, CLOSE, 'verbatim');

/** Seed-OSS's thinking. */
export const SEED_OSS_THINKING: ThinkingTags = ['<seed:think>', '</seed:think>'];
