import { createObject } from '../arguments-tree.js';
import { type BlockCall, type BlockReader, failure, stripOuterNewlines } from './block.js';

const FUNCTION = /<function=([^>\n]+)>/y;
const PARAMETER = /<parameter=([^>\n]+)>/y;

/**
 * Qwen3-Coder's form: `<tool_call>`, `<function=name>`, `<parameter=key>value</parameter>`…,
 * `</function>`, `</tool_call>`. As Qwen's own parser does, a value loses one newline right
 * after its opening tag and one right before its closing tag; it is otherwise as written.
 */
export const qwen3Coder: BlockReader = {
  open: '<tool_call>',
  close: '</tool_call>',
  read(block) {
    const calls: BlockCall[] = [];
    const bodyEnd = block.length - '</tool_call>'.length;
    let at = '<tool_call>'.length;
    for (;;) {
      const next = block.indexOf('<function', at);
      if (next === -1 || next >= bodyEnd) break;
      FUNCTION.lastIndex = next;
      const fn = FUNCTION.exec(block);
      if (fn === null)
        return failure('missing-tool-name', 'write the function as <function=name>', next);
      const close = block.indexOf('</function>', FUNCTION.lastIndex);
      if (close === -1 || close >= bodyEnd)
        return failure(
          'incomplete-tool-call',
          '<function=…> was not closed with </function>',
          next,
        );
      const args = createObject();
      let p = FUNCTION.lastIndex;
      for (;;) {
        const start = block.indexOf('<parameter=', p);
        if (start === -1 || start >= close) break;
        PARAMETER.lastIndex = start;
        const parameter = PARAMETER.exec(block);
        if (parameter === null) {
          p = start + 1;
          continue;
        }
        const end = block.indexOf('</parameter>', PARAMETER.lastIndex);
        if (end === -1 || end > close)
          return failure(
            'incomplete-tool-call',
            '<parameter=…> was not closed with </parameter>',
            start,
          );
        args[parameter[1].trim()] = stripOuterNewlines(block.slice(PARAMETER.lastIndex, end));
        p = end + '</parameter>'.length;
      }
      at = close + '</function>'.length;
      calls.push({ serverName: 'local', toolName: fn[1].trim(), arguments: args, end: at });
    }
    if (calls.length === 0)
      return failure('missing-tool-name', 'a <tool_call> block holds no <function=name>', 0);
    calls[calls.length - 1].end = block.length;
    return { ok: true, format: 'qwen3-coder', calls };
  },
};
