import { createObject } from '../arguments-tree.js';
import { readTag, type Tag, TagKind } from '../tag.js';
import { type BlockReader, failure, stripOuterNewlines } from './block.js';

/** Parameters whose text is kept as written but for one newline at each end, as Cline does. */
const VERBATIM = new Set(['content', 'diff']);

/**
 * Where a parameter's value ends: at its closing tag followed (blanks allowed) by the next
 * parameter's opening tag or by the tool's own close. A `</content>` inside a file's content
 * followed by anything else is part of it (Cline's and Roo Code's parsers take the last
 * `</content>` of a write_to_file). -1 when there is none before `bodyEnd`.
 */
function confirmedEnd(block: string, close: string, from: number, bodyEnd: number): number {
  const tag: Tag = { kind: TagKind.None, name: '', length: 0 };
  for (
    let at = block.indexOf(close, from);
    at !== -1 && at < bodyEnd;
    at = block.indexOf(close, at + 1)
  ) {
    let next = at + close.length;
    while (next < bodyEnd && /\s/.test(block[next])) next++;
    if (next >= bodyEnd) return at;
    if (block.charCodeAt(next) === 0x3c) {
      readTag(block, next, true, tag);
      if (tag.kind === TagKind.Open) return at;
    }
  }
  return -1;
}

/**
 * Cline's (and Roo Code's) form: the tool's own name as the tag, each parameter a child,
 * `<write_to_file><path>a.txt</path><content>…</content></write_to_file>`. Values are taken as
 * written up to the parameter's closing tag that the next parameter or the tool's close
 * follows; they are trimmed, except `content` and `diff`, which lose only one newline at each
 * end.
 */
export function clineReader(toolName: string): BlockReader {
  const open = `<${toolName}>`;
  const close = `</${toolName}>`;
  return {
    open,
    close,
    read(block) {
      const args = createObject();
      const bodyEnd = block.length - close.length;
      const tag: Tag = { kind: TagKind.None, name: '', length: 0 };
      let at = open.length;
      while (at < bodyEnd) {
        const lt = block.indexOf('<', at);
        if (lt === -1 || lt >= bodyEnd) break;
        readTag(block, lt, true, tag);
        if (tag.kind !== TagKind.Open) {
          at = lt + 1;
          continue;
        }
        const valueStart = lt + tag.length;
        const end = confirmedEnd(block, `</${tag.name}>`, valueStart, bodyEnd);
        if (end === -1)
          return failure(
            'incomplete-tool-call',
            `<${tag.name}> was not closed with </${tag.name}>`,
            lt,
          );
        const value = block.slice(valueStart, end);
        args[tag.name] = VERBATIM.has(tag.name) ? stripOuterNewlines(value) : value.trim();
        at = end + tag.name.length + 3;
      }
      return {
        ok: true,
        format: 'cline',
        calls: [{ serverName: 'local', toolName, arguments: args, end: block.length }],
      };
    },
  };
}

/**
 * `<list_files/>` at a line start: a call of a known tool without arguments (models write the
 * self-closing form for tools that take none).
 */
export function clineSelfClosingReader(toolName: string): BlockReader {
  const tag = `<${toolName}/>`;
  return {
    // The tag is the whole block: it opens and closes it.
    open: tag,
    close: tag,
    read: () => ({
      ok: true,
      format: 'cline',
      calls: [{ serverName: 'local', toolName, arguments: createObject(), end: tag.length }],
    }),
  };
}
