import { createObject } from '../arguments-tree.js';
import { readTag, type Tag, TagKind } from '../tag.js';
import { type BlockReader, BlockStatus, type BlockStream, skipBlanks } from './block.js';
import {
  createInvocationStream,
  type InvocationForm,
  type OpeningReader,
} from './invocation-stream.js';

/** Parameters whose text is kept as written but for one newline at each end, as Cline does. */
const VERBATIM = new Set(['content', 'diff']);

/** Any `<name>`: every child element of a Cline tool is a parameter. */
const readParameter: OpeningReader = (s, at, final) => {
  const tag: Tag = { kind: TagKind.None, name: '', length: 0 };
  readTag(s, at, final, tag);
  if (tag.kind === TagKind.NeedMore) return 'partial';
  return tag.kind === TagKind.Open ? { name: tag.name, length: tag.length } : null;
};

/**
 * Cline's (and Roo Code's) form: the tool's own name as the tag, each parameter a child,
 * `<write_to_file><path>a.txt</path><content>…</content></write_to_file>`. A parameter's
 * closing tag counts when the next parameter or the tool's close follows it (Cline's and Roo
 * Code's parsers take the last `</content>` of a write_to_file), so a file may hold
 * `</content>`. Values are trimmed, except `content` and `diff`, which lose only one newline
 * at each end.
 */
export function clineReader(toolName: string): BlockReader {
  const open = `<${toolName}>`;
  const form: InvocationForm = {
    format: 'cline',
    wrapper: null,
    call: {
      start: open,
      read: (s, at) => (s.startsWith(open, at) ? { name: toolName, length: open.length } : null),
      close: `</${toolName}>`,
      unnamed: `write the call as ${open}`,
      unclosed: `${open} was not closed with </${toolName}>`,
    },
    parameter: {
      read: readParameter,
      close: (name) => `</${name}>`,
      unclosed: 'a parameter was not closed with its closing tag',
      reopens: null,
    },
    key: (name) => name,
    value: (key) => (VERBATIM.has(key) ? 'newlines' : 'trim'),
    empty: `${open} holds no call`,
  };
  return {
    open,
    midLine: opensMidLine,
    stream: (sink, limits) => createInvocationStream(form, sink, limits),
  };
}

/** How many blanks may stand between a Cline tool tag and its first parameter mid-line. */
const MAX_BLANKS = 256;

/**
 * A Cline tool tag in the middle of a line opens a call only when a parameter tag follows it
 * directly (blanks and newlines allowed): prose names tools (`use <read_file> to …`).
 */
function opensMidLine(s: string, after: number, final: boolean): boolean | null {
  const limit = after + MAX_BLANKS;
  const next = skipBlanks(s, after, Math.min(s.length, limit));
  if (next >= limit) return false;
  if (next >= s.length) return final ? false : null;
  const parameter = readParameter(s, next, final);
  if (parameter === 'partial') return null;
  return parameter !== null;
}

/**
 * `<list_files/>` at a line start: a call of a known tool without arguments (models write the
 * self-closing form for tools that take none).
 */
export function clineSelfClosingReader(toolName: string): BlockReader {
  const tag = `<${toolName}/>`;
  return {
    open: tag,
    stream(sink): BlockStream {
      let status = BlockStatus.Open;
      return {
        run(_s, from, offset) {
          const id = sink.start();
          sink.name(id, toolName);
          sink.end(id, toolName, createObject(), 'cline', offset + from + tag.length);
          status = BlockStatus.Done;
          return from + tag.length;
        },
        streamValue: () => false,
        get status() {
          return status;
        },
        stop: (code, message, offset) => ({ code, message, offset }),
      };
    },
  };
}
