import type { BlockReader } from '../block.js';
import { LOOKAHEAD } from '../lookahead.js';
import type { MarkupForm } from '../markup/form.js';
import { literalRecoveries, recoveryRow } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

const CALL = '<tool_call>';
const CALL_CLOSE = '</tool_call>';
const KEY = '<arg_key>';
const KEY_CLOSE = '</arg_key>';
const VALUE = '<arg_value>';
const VALUE_CLOSE = '</arg_value>';
/** Blanks between `<tool_call>`, the name and the line's end, at most. */
const BLANKS = LOOKAHEAD.markerBlanks.value;

export const GLM_RECOVERIES = {
  ...literalRecoveries(
    '<tool_call> was not closed with </tool_call>',
    '<arg_value> was not closed with </arg_value>',
  ),
  /** What GLM's readers say of `\n` written as two characters between its tags. */
  'escaped-text': recoveryRow(
    'stray-text',
    'literal \\n escapes stand between the tags (a reply logged escaped, as in a JSON string); read as newlines, and its values unescaped',
  ),
  'stray-in-opening': recoveryRow(
    'stray-text',
    'text between </arg_key> and <arg_value> is ignored',
  ),
};
const ESCAPED = GLM_RECOVERIES['escaped-text'];
/** A call's name followed by `\\n` (or `\\t`, `\\r`) written as two characters. */
const ESCAPED_AFTER_NAME = { group: 2, test: /\\/ };

/** GLM's form, which `auto` reads in `<tool_call>` when a name begins its body. */
export const GLM_FORM: MarkupForm = {
  format: 'glm',
  tags: 'literal',
  // One call a block: `<tool_call>` opens the call itself, its name written after it.
  wrapper: null,
  call: {
    start: CALL,
    opening: {
      kind: 'named',
      prefix: CALL,
      pattern: new RegExp(
        String.raw`<tool_call>[ \t]{0,${BLANKS}}([^\s<>{}[\]"\\]{1,${LOOKAHEAD.callName.value}})((?:[ \t]|\\[nrt]){0,${BLANKS}})(?:\r?\n|(?=<arg_key>)|(?=<\/tool_call>))`,
        'y',
      ),
      // `\n` written as two characters after the name: a reply logged escaped.
      stray: [{ when: ESCAPED_AFTER_NAME, recovery: ESCAPED }],
      escaped: ESCAPED_AFTER_NAME,
    },
    close: CALL_CLOSE,
    closeInValue: 'next-call',
    reopenFails: false,
    unnamed: 'write the call as <tool_call>name, then <arg_key>…</arg_key><arg_value>…</arg_value>',
  },
  parameter: {
    opening: {
      kind: 'named',
      prefix: KEY,
      pattern: new RegExp(
        String.raw`<arg_key>([^<]{1,${LOOKAHEAD.parameterName.value}})<\/arg_key>([^<]{0,${LOOKAHEAD.keyValueGap.value}})<arg_value>`,
        'y',
      ),
      // Between </arg_key> and <arg_value>: blanks, escaped blanks (a reply logged escaped), or
      // text that does not belong there.
      stray: [
        { when: { group: 2, test: /^\s*$/ }, recovery: null },
        { when: { group: 2, test: /^(?:\s|\\[nrt])*$/ }, recovery: ESCAPED },
        { recovery: GLM_RECOVERIES['stray-in-opening'] },
      ],
      escaped: { group: 2, test: /^(?=[\s\S]*\\[nrt])(?:\s|\\[nrt])*$/ },
    },
    close: VALUE_CLOSE,
    reopens: KEY,
  },
  key: 'trim',
  text: 'verbatim',
  repeated: 'warn',
  jsonForm: false,
  escapedBlanks: true,
  empty: 'a <tool_call> block holds no call',
  recoveries: GLM_RECOVERIES,
};

/**
 * GLM-4.5 / 4.6's form, as their chat templates write it: `<tool_call>name` then, per
 * argument, `<arg_key>key</arg_key>` and `<arg_value>value</arg_value>`, then `</tool_call>`;
 * one call a block. Values as written (the template writes non-strings as JSON). It shares
 * `<tool_call>` with Hermes and Qwen3-Coder: in `auto` a body that starts with a name is GLM's.
 */
export const glm: BlockReader = {
  open: CALL,
  anywhere: true,
  reads: { markup: GLM_FORM },
};

/** GLM's calls as its templates write them: one a block, each key and value on a line. */
export const GLM_WRITTEN: WrittenForm = {
  args: {
    kind: 'text',
    names: {
      maxLength: LOOKAHEAD.parameterName.value,
      nonEmpty: true,
      trimmed: true,
      forbidden: '<',
    },
    open: [KEY, SLOT.key, `${KEY_CLOSE}\n${VALUE}`],
    close: VALUE_CLOSE,
    after: '\n',
    mode: 'verbatim',
    forbid: [CALL, CALL_CLOSE, KEY, KEY_CLOSE, VALUE, VALUE_CLOSE],
  },
  call: { before: [CALL, SLOT.name, '\n'], after: CALL_CLOSE },
  open: '',
  close: '',
  separator: '\n',
  trigger: CALL,
};
