import type { BlockReader } from './block.js';
import { createJsonCallStream, type JsonCallForm } from './json-call-stream.js';

const FORM: JsonCallForm = {
  format: 'deepseek',
  wrapper: { open: '<｜tool▁calls▁begin｜>', close: '<｜tool▁calls▁end｜>' },
  call: {
    open: '<｜tool▁call▁begin｜>',
    separator: '<｜tool▁sep｜>',
    close: '<｜tool▁call▁end｜>',
  },
  // V3 and R1 write the constant `function` before the separator, then the name on its own
  // line and the arguments in a ```json fence.
  nameOf: (header) => (header === 'function' ? '' : header),
  nameAfterSeparator(_header, body) {
    const newline = body.indexOf('\n');
    if (newline === -1) return null;
    const json = body.indexOf('{', newline);
    return json === -1 ? null : { name: body.slice(0, newline).trim(), json };
  },
};

/**
 * DeepSeek's form with its full-width special tokens: V3.1 writes `<｜tool▁calls▁begin｜>`
 * `<｜tool▁call▁begin｜>name<｜tool▁sep｜>{…}<｜tool▁call▁end｜>` … `<｜tool▁calls▁end｜>`; V3 and R1
 * write `function<｜tool▁sep｜>name` and a fenced JSON body. Both are read.
 */
export const deepseek: BlockReader = {
  open: FORM.wrapper.open,
  anywhere: true,
  stream: (sink, limits) => createJsonCallStream(FORM, sink, limits),
};
