import type { BlockReader, Confirmation } from '../block.js';
import { LOOKAHEAD } from '../lookahead.js';
import type { MarkupForm, Opening, ValueTexts } from '../markup/form.js';
import { literalRecoveries } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

/**
 * Values are trimmed, as Cline does, but for the files' text (`content`, `diff`): kept as
 * written but for one newline at each end.
 */
const TEXT: ValueTexts = { byKey: { content: 'newlines', diff: 'newlines' }, otherwise: 'trim' };

/** Cline's recoveries in a call of `toolName`: its words name the tool's tag. */
const clineRecoveries = (toolName: string) =>
  literalRecoveries(
    `<${toolName}> was not closed with </${toolName}>`,
    'a parameter was not closed with its closing tag',
  );
/** The family's rows, as for a tool named `tool_name` (each tool's name its own). */
export const CLINE_RECOVERIES = clineRecoveries('tool_name');

/** Cline's calls of `toolName`, opened by `opening` (its tag, or its self-closing tag). */
function clineForm(toolName: string, opening: Opening): MarkupForm {
  const open = `<${toolName}>`;
  return {
    format: 'cline',
    tags: 'literal',
    wrapper: null,
    call: {
      start: open,
      opening,
      close: `</${toolName}>`,
      closeInValue: 'next-call',
      reopenFails: false,
      unnamed: `write the call as ${open}`,
      unreadable: `the text inside ${open} is not its parameters; write each argument as <key>value</key>, with nothing else between them`,
    },
    parameter: {
      // Every child element of a Cline tool is a parameter.
      opening: { kind: 'tag' },
      close: { before: '</', after: '>' },
      reopens: null,
    },
    key: 'as-written',
    text: TEXT,
    repeated: 'warn',
    jsonForm: false,
    empty: `${open} holds no call`,
    recoveries: clineRecoveries(toolName),
  };
}

/**
 * Cline's (and Roo Code's) form: the tool's own name as the tag, each parameter a child,
 * `<write_to_file><path>a.txt</path><content>…</content></write_to_file>`. A parameter's
 * closing tag counts when the next parameter or the tool's close follows it (Cline's and Roo
 * Code's parsers take the last `</content>` of a write_to_file), so a file may hold
 * `</content>`. Values are trimmed, except `content` and `diff`, which lose only one newline
 * at each end.
 */
export function clineReader(toolName: string): BlockReader {
  const form = clineForm(toolName, { kind: 'literal', text: `<${toolName}>`, name: toolName });
  return { open: form.call.start, midLine: PARAMETER_FOLLOWS, reads: { markup: form } };
}

/**
 * A Cline tool tag in the middle of a line opens a call only when a parameter tag follows it
 * directly (blanks and newlines before it, at most `clineMidLine`): prose names tools
 * (`use <read_file> to …`).
 */
const PARAMETER_FOLLOWS: Confirmation = {
  afterBlanks: 'tag',
  maxBlanks: LOOKAHEAD.clineMidLine.value,
  onlyBlanks: false,
};

/**
 * `<list_files/>` at a line start: a call of a known tool without arguments (models write the
 * self-closing form for tools that take none). The name read ends in `/`: a call that closes
 * where it opens.
 */
export function clineSelfClosingReader(toolName: string): BlockReader {
  const tag = `<${toolName}/>`;
  const form = clineForm(toolName, { kind: 'literal', text: tag, name: `${toolName}/` });
  return { open: tag, reads: { markup: form } };
}

/**
 * Cline's calls as its prompt shows them: the tool's tag, each parameter's element on a line
 * of its own. A value holds neither its own close nor a tool's (the reader takes a close where
 * the next parameter or the tool's close follows it; a grammar leaves no doubt). A call opens
 * at a line start, with its tool's tag.
 */
export const CLINE_WRITTEN: WrittenForm = {
  args: {
    kind: 'text',
    names: 'element-name',
    open: ['<', SLOT.key, '>'],
    close: ['</', SLOT.key, '>'],
    after: '\n',
    mode: TEXT,
    forbid: [
      ['</', SLOT.key, '>'],
      ['</', SLOT.name, '>'],
    ],
  },
  call: { before: ['<', SLOT.name, '>\n'], after: ['</', SLOT.name, '>'] },
  open: '',
  close: '',
  separator: '\n',
  trigger: ['<', SLOT.name, '>'],
  triggerAtLineStart: true,
};
