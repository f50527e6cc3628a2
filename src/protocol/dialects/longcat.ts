import { type BlockReader, MAX_LEADING_BLANKS, skipBlanks } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { BodyReader } from '../body/reader.js';
import { NAME_AND_ARGUMENTS, type WrittenForm } from './written.js';

const LONGCAT: BodyForm = {
  format: 'longcat',
  kind: 'calls',
  open: '<longcat_tool_call>',
  close: '</longcat_tool_call>',
  // As Hermes' `</tool_call>`: code in a JSON string may hold the closing tag.
  closeIsToken: false,
  syntax: Syntax.Json,
};

/**
 * LongCat-Flash-Chat (Meituan): Hermes' call object, or a list of them, in
 * `<longcat_tool_call>` … `</longcat_tool_call>` (special tokens of its vocabulary: the block
 * opens anywhere). A `</longcat_tool_call>` inside a JSON string is the string's text.
 */
export const longcat: BlockReader = {
  open: LONGCAT.open,
  anywhere: true,
  stream: (sink, limits) => new BodyReader(LONGCAT, sink, limits),
};

/**
 * Whether the body after `<longcat_tool_call>` begins as JSON (`{` or `[` after blanks); null
 * while only blanks have come. LongCat-Flash-Lite writes a name and `<longcat_arg_key>` pairs
 * in the same tags, a form no dialect reads: `auto` leaves it text rather than fail it.
 */
function beginsJson(s: string, after: number, final: boolean): boolean | null {
  const first = skipBlanks(s, after, Math.min(s.length, after + MAX_LEADING_BLANKS));
  if (first >= s.length) return final ? true : null;
  return s[first] === '{' || s[first] === '[';
}

/** LongCat's block in `auto`: only where JSON follows the opening. */
export const longcatAuto: BlockReader = {
  ...longcat,
  midLine: beginsJson,
  lineStart: beginsJson,
};

/** Hermes' object in LongCat's own tags; no public template was found to say more. */
export const LONGCAT_WRITTEN: WrittenForm = {
  args: { kind: 'json', forbid: '' },
  call: {
    before: [LONGCAT.open, ...NAME_AND_ARGUMENTS.before],
    after: `${NAME_AND_ARGUMENTS.after}${LONGCAT.close}`,
  },
  open: '',
  close: '',
  separator: '\n',
  trigger: LONGCAT.open,
};
