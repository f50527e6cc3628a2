import type { BlockReader } from './block.js';
import { createInvocationStream, type InvocationForm, namedOpening } from './invocation-stream.js';

const FORM: InvocationForm = {
  format: 'anthropic-xml',
  wrapper: { open: '<function_calls>', close: '</function_calls>' },
  call: {
    start: '<invoke',
    read: namedOpening(
      '<invoke',
      /<invoke\s{1,64}name\s{0,64}=\s{0,64}(?:"([^"]{0,256})"|'([^']{0,256})')\s{0,64}>/y,
    ),
    close: '</invoke>',
    unnamed: '<invoke> needs a name: <invoke name="tool_name">',
    unclosed: '<invoke> was not closed with </invoke>',
  },
  parameter: {
    read: namedOpening(
      '<parameter',
      /<parameter\s{1,64}name\s{0,64}=\s{0,64}(?:"([^"]{0,256})"|'([^']{0,256})')\s{0,64}>/y,
    ),
    close: () => '</parameter>',
    unclosed: '<parameter> was not closed with </parameter>',
    reopens: '<parameter',
  },
  key: (name) => name,
  value: () => 'verbatim',
  empty: 'a <function_calls> block holds no <invoke name="…">',
};

/**
 * Anthropic's XML form: `<function_calls>`, then per call `<invoke name="tool">` with
 * `<parameter name="key">value</parameter>` children. Values are taken as written (no entity
 * decoding: this form does not escape).
 */
export const anthropicXml: BlockReader = {
  open: '<function_calls>',
  anywhere: true,
  stream: (sink, limits) => createInvocationStream(FORM, sink, limits),
};
