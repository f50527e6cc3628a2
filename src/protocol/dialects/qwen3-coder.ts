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
  anywhere: true,
  read: (block) => readInvocations(block, FORM),
};

const BARE: InvocationForm = { ...FORM, open: '', close: '' };

/**
 * `<function=name>…</function>` at a line start with no `<tool_call>` around it: what some
 * Qwen3-Coder models write every time, and the form OpenHands and SWE-agent prompt for. Read
 * as a call, with a `missing-wrapper` warning.
 */
export const qwen3CoderBare: BlockReader = {
  open: '<function=',
  close: '</function>',
  read(block) {
    const result = readInvocations(block, BARE);
    if (!result.ok) return result;
    const warning = {
      code: 'missing-wrapper' as const,
      message: 'write the call inside <tool_call> … </tool_call>',
      position: 0,
      call: 0,
    };
    return { ...result, warnings: [warning, ...(result.warnings ?? [])] };
  },
};
