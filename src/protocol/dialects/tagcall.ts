import type { BlockReader } from '../block.js';
import type { MarkupForm } from '../markup/form.js';
import { MARKUP_RECOVERIES, recoveryRow, VALUE_RECOVERIES } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

/**
 * The tagcall protocol (DESIGN.md §1): `<tool>` at a line start, named by its `<tool_name>`
 * (and `<server_name>`) child, arguments as nested elements in `<arguments>`, text with the
 * XML entities and CDATA; the deprecated JSON form `<tool>{…}</tool>`.
 */
/** The `<tool>` protocol's tags: the call's, its names' and its arguments' container. */
export const TAGCALL_TAGS = {
  open: '<tool>',
  close: '</tool>',
  tool: 'tool_name',
  server: 'server_name',
  container: 'arguments',
} as const;
const { open: OPEN, close: CLOSE, container: CONTAINER } = TAGCALL_TAGS;
const FIELDS = { tool: TAGCALL_TAGS.tool, server: TAGCALL_TAGS.server };

/** What the `<tool>` protocol reads as meant, and says: its elements' mistakes, its JSON form. */
export const TAGCALL_RECOVERIES = {
  ...MARKUP_RECOVERIES,
  ...VALUE_RECOVERIES,
  'unclosed-arguments': recoveryRow(
    'unclosed-element',
    '<{container}> was not closed before {close}',
  ),
  'duplicate-field': recoveryRow(
    'duplicate-field',
    '<{field}> is given twice; the last one counts',
  ),
  'argument-outside-arguments': recoveryRow(
    'argument-outside-arguments',
    '<{name}> stands outside <{container}>; read as an argument',
  ),
  'mismatched-call-close': recoveryRow('mismatched-close-tag', '</{name}> read as {close}'),
  'mismatched-arguments-close': recoveryRow(
    'mismatched-close-tag',
    '</{name}> closes nothing here; read as </{container}>',
  ),
  'stray-close': recoveryRow(
    'mismatched-close-tag',
    '</{name}> closes no open element and is ignored',
  ),
  'deprecated-json-form': recoveryRow(
    'deprecated-json-format',
    'the JSON form of {start} is deprecated; write XML elements',
  ),
};

export const TAGCALL_FORM: MarkupForm = {
  format: 'xml',
  tags: 'xml',
  wrapper: null,
  call: {
    start: OPEN,
    opening: { kind: 'literal', text: OPEN },
    close: CLOSE,
    closeInValue: 'line-end',
    reopenFails: true,
    unnamed: 'the <tool> block has no <tool_name>; name the tool to call',
    unreadable:
      'the text inside the <tool> block is not its arguments; write each argument as an element inside <arguments>…</arguments>, with no other text in the block',
  },
  fields: FIELDS,
  container: CONTAINER,
  parameter: {
    // Inside `<arguments>` every element is an argument.
    opening: { kind: 'tag' },
    close: { before: '</', after: '>' },
    reopens: null,
  },
  key: 'as-written',
  text: 'xml',
  repeated: 'list',
  jsonForm: true,
  empty: 'the <tool> block holds no call',
  recoveries: TAGCALL_RECOVERIES,
};

export const tagcall: BlockReader = {
  open: OPEN,
  reads: { markup: TAGCALL_FORM },
};

/**
 * The canonical `<tool>` block, as the model is asked to write it: its server's and tool's
 * names, then the arguments' elements one a line (`renderArguments`). Its grammar has a
 * builder of its own (src/grammar/tool-grammar.ts).
 */
export const TAGCALL_WRITTEN: WrittenForm = {
  args: { kind: 'xml' },
  call: {
    before: [
      `${OPEN}\n<${FIELDS.server}>`,
      SLOT.server,
      `</${FIELDS.server}>\n<${FIELDS.tool}>`,
      SLOT.name,
      `</${FIELDS.tool}>\n<${CONTAINER}>`,
    ],
    after: `</${CONTAINER}>\n${CLOSE}`,
  },
  open: '',
  close: '',
  separator: '\n',
  trigger: OPEN,
  triggerAtLineStart: true,
};
