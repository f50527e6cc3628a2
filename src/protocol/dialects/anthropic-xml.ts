import { createObject } from '../arguments-tree.js';
import { type BlockCall, type BlockReader, failure } from './block.js';

const INVOKE = /<invoke\s+name\s*=\s*(?:"([^"]*)"|'([^']*)')\s*>/y;
const PARAMETER = /<parameter\s+name\s*=\s*(?:"([^"]*)"|'([^']*)')\s*>/y;

/**
 * Anthropic's XML form: `<function_calls>`, then per call `<invoke name="tool">` with
 * `<parameter name="key">value</parameter>` children. Values are taken as written (no entity
 * decoding: this form does not escape), up to the first `</parameter>`.
 */
export const anthropicXml: BlockReader = {
  open: '<function_calls>',
  close: '</function_calls>',
  read(block) {
    const calls: BlockCall[] = [];
    let at = '<function_calls>'.length;
    const bodyEnd = block.length - '</function_calls>'.length;
    for (;;) {
      const next = block.indexOf('<invoke', at);
      if (next === -1 || next >= bodyEnd) break;
      INVOKE.lastIndex = next;
      const invoke = INVOKE.exec(block);
      if (invoke === null)
        return failure(
          'missing-tool-name',
          '<invoke> needs a name: <invoke name="tool_name">',
          next,
        );
      const close = block.indexOf('</invoke>', INVOKE.lastIndex);
      if (close === -1 || close >= bodyEnd)
        return failure('incomplete-tool-call', '<invoke> was not closed with </invoke>', next);
      const args = createObject();
      let p = INVOKE.lastIndex;
      for (;;) {
        const start = block.indexOf('<parameter', p);
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
            '<parameter> was not closed with </parameter>',
            start,
          );
        args[parameter[1] ?? parameter[2]] = block.slice(PARAMETER.lastIndex, end);
        p = end + '</parameter>'.length;
      }
      at = close + '</invoke>'.length;
      calls.push({
        serverName: 'local',
        toolName: (invoke[1] ?? invoke[2]).trim(),
        arguments: args,
        end: at,
      });
    }
    if (calls.length === 0)
      return failure('missing-tool-name', 'a <function_calls> block holds no <invoke name="…">', 0);
    calls[calls.length - 1].end = block.length;
    return { ok: true, format: 'anthropic-xml', calls };
  },
};
