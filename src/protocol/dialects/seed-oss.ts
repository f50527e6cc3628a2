import type { BlockReader } from '../block.js';
import type { MarkupForm } from '../markup/form.js';
import { MarkupReader } from '../markup/reader.js';
import { QWEN3_CODER_FORM } from './qwen3-coder.js';

const FORM: MarkupForm = {
  ...QWEN3_CODER_FORM,
  format: 'seed-oss',
  wrapper: { open: '<seed:tool_call>', close: '</seed:tool_call>' },
  // Its template writes a value right after its opening tag, with no newline to drop.
  text: () => 'verbatim',
  empty: 'a <seed:tool_call> block holds no <function=name>',
};

/**
 * ByteDance Seed-OSS's form, as its chat template writes it: Qwen3-Coder's `<function=…>` and
 * `<parameter=…>` inside `<seed:tool_call>` … `</seed:tool_call>` (special tokens), values as
 * written. Its thinking, `<seed:think>` … `</seed:think>`, is read as thinking in every dialect.
 */
export const seedOss: BlockReader = {
  open: '<seed:tool_call>',
  anywhere: true,
  stream: (sink, limits) => new MarkupReader(FORM, sink, limits),
};
