import { type BlockReader, stripOuterNewlines } from './block.js';
import { type InvocationForm, readInvocations } from './invocations.js';

const FORM: InvocationForm = {
  format: 'qwen3-coder',
  open: '<tool_call>',
  close: '</tool_call>',
  call: {
    start: '<function',
    pattern: /<function=([^>\n]{1,256})>/y,
    close: '</function>',
    unnamed: 'write the function as <function=name>',
    unclosed: '<function=…> was not closed with </function>',
  },
  parameter: {
    start: '<parameter=',
    pattern: /<parameter=([^>\n]{1,256})>/y,
    close: '</parameter>',
    unclosed: '<parameter=…> was not closed with </parameter>',
  },
  key: (name) => name.trim(),
  value: stripOuterNewlines,
  empty: 'a <tool_call> block holds no <function=name>',
};

/**
 * Qwen3-Coder's form: `<tool_call>`, `<function=name>`, `<parameter=key>value</parameter>`…,
 * `</function>`, `</tool_call>`. As Qwen's own parser does, a value loses one newline right
 * after its opening tag and one right before its closing tag; it is otherwise as written.
 */
export const qwen3Coder: BlockReader = {
  open: FORM.open,
  close: FORM.close,
  read: (block) => readInvocations(block, FORM),
};
