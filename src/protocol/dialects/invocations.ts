import { createObject } from '../arguments-tree.js';
import type { CallFormat } from '../events.js';
import { type BlockCall, type BlockResult, failure } from './block.js';

/** An element that carries its name in its opening tag: `<invoke name="x">`, `<function=x>`. */
export interface NamedTag {
  /** What its opening tag starts with, to find candidates. */
  start: string;
  /** A sticky pattern for the whole opening tag, the name in group 1 (or 2). */
  pattern: RegExp;
  close: string;
}

export interface InvocationForm {
  format: CallFormat;
  open: string;
  close: string;
  call: NamedTag & { unnamed: string; unclosed: string };
  parameter: NamedTag & { unclosed: string };
  /** The parameter's name and value as the form wants them read. */
  key: (name: string) => string;
  value: (text: string) => string;
  /** The message when the block holds no call. */
  empty: string;
}

const nameOf = (match: RegExpExecArray) => match[1] ?? match[2];

/**
 * Reads a block of calls whose opening tags carry the tool's name, each holding parameters
 * whose opening tags carry theirs (Anthropic's `<invoke>` / `<parameter>`, Qwen3-Coder's
 * `<function=…>` / `<parameter=…>`). A parameter's value runs to its first closing tag; a
 * candidate tag that does not match the pattern is text. Each call's text ends after its
 * closing tag, the last call's at the block's end.
 */
export function readInvocations(block: string, form: InvocationForm): BlockResult {
  const { call, parameter } = form;
  const calls: BlockCall[] = [];
  const bodyEnd = block.length - form.close.length;
  let at = form.open.length;
  for (;;) {
    const next = block.indexOf(call.start, at);
    if (next === -1 || next >= bodyEnd) break;
    call.pattern.lastIndex = next;
    const opening = call.pattern.exec(block);
    if (opening === null) return failure('missing-tool-name', call.unnamed, next);
    const close = block.indexOf(call.close, call.pattern.lastIndex);
    if (close === -1 || close >= bodyEnd)
      return failure('incomplete-tool-call', call.unclosed, next);
    const args = createObject();
    let p = call.pattern.lastIndex;
    for (;;) {
      const start = block.indexOf(parameter.start, p);
      if (start === -1 || start >= close) break;
      parameter.pattern.lastIndex = start;
      const named = parameter.pattern.exec(block);
      if (named === null) {
        p = start + 1;
        continue;
      }
      const end = block.indexOf(parameter.close, parameter.pattern.lastIndex);
      if (end === -1 || end > close)
        return failure('incomplete-tool-call', parameter.unclosed, start);
      args[form.key(nameOf(named))] = form.value(block.slice(parameter.pattern.lastIndex, end));
      p = end + parameter.close.length;
    }
    at = close + call.close.length;
    calls.push({ serverName: 'local', toolName: nameOf(opening).trim(), arguments: args, end: at });
  }
  if (calls.length === 0) return failure('missing-tool-name', form.empty, 0);
  calls[calls.length - 1].end = block.length;
  return { ok: true, format: form.format, calls };
}
