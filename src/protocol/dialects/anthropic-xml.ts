import type { BlockReader } from './block.js';
import { type InvocationForm, readInvocations } from './invocations.js';

const FORM: InvocationForm = {
  format: 'anthropic-xml',
  open: '<function_calls>',
  close: '</function_calls>',
  call: {
    start: '<invoke',
    pattern: /<invoke\s{1,64}name\s{0,64}=\s{0,64}(?:"([^"]{0,256})"|'([^']{0,256})')\s{0,64}>/y,
    close: '</invoke>',
    unnamed: '<invoke> needs a name: <invoke name="tool_name">',
    unclosed: '<invoke> was not closed with </invoke>',
  },
  parameter: {
    start: '<parameter',
    pattern: /<parameter\s{1,64}name\s{0,64}=\s{0,64}(?:"([^"]{0,256})"|'([^']{0,256})')\s{0,64}>/y,
    close: '</parameter>',
    unclosed: '<parameter> was not closed with </parameter>',
  },
  key: (name) => name,
  value: (text) => text,
  empty: 'a <function_calls> block holds no <invoke name="…">',
};

/**
 * Anthropic's XML form: `<function_calls>`, then per call `<invoke name="tool">` with
 * `<parameter name="key">value</parameter>` children. Values are taken as written (no entity
 * decoding: this form does not escape), up to the first `</parameter>`.
 */
export const anthropicXml: BlockReader = {
  open: FORM.open,
  close: FORM.close,
  anywhere: true,
  read: (block) => readInvocations(block, FORM),
};
