import type { BlockReader } from '../block.js';
import { LOOKAHEAD } from '../lookahead.js';
import type { MarkupForm, Opening } from '../markup/form.js';
import { recoveryWith } from '../recoveries.js';
import { FUNCTION_JSON_HEAD } from './functionary.js';
import { literalRecoveries, missingWrapper, recoveryRow } from './recoveries.js';
import { type NameRule, SLOT, type WrittenForm } from './written.js';

/**
 * A name of at most `longest` characters as Qwen3-Coder's template writes it
 * (`<function=name>`), or in quotes, as some models and tools write it (`<function="name">`):
 * read without them, with a warning.
 */
const quotedOr = (tag: string, longest: number): Opening => ({
  kind: 'named',
  prefix: `<${tag}=`,
  pattern: new RegExp(`<${tag}=(?:"([^"\\n>]{1,${longest}})"|([^>\\n]{1,${longest}}))>`, 'y'),
  // The name in quotes (group 1): read without them, with the row's warning.
  stray: [
    {
      when: { group: 1, test: /[\s\S]/ },
      recovery: recoveryWith(QWEN3_CALL_RECOVERIES['quoted-name'], { tag }),
    },
  ],
});

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';
const FUNCTION = '<function=';
const FUNCTION_CLOSE = '</function>';
const PARAMETER = '<parameter=';
const PARAMETER_CLOSE = '</parameter>';

/** The recoveries of Qwen3-Coder's calls (Seed-OSS's too). */
export const QWEN3_CALL_RECOVERIES = {
  ...literalRecoveries(
    '<function=…> was not closed with </function>',
    '<parameter=…> was not closed with </parameter>',
  ),
  'quoted-name': recoveryRow(
    'stray-text',
    '<{tag}="…"> has its name in quotes; write <{tag}=name>',
  ),
};
/** The family's: its calls', and its bare call's `missing-wrapper`. */
export const QWEN3_CODER_RECOVERIES = {
  ...QWEN3_CALL_RECOVERIES,
  'missing-wrapper': missingWrapper(`write the call inside ${OPEN} … ${CLOSE}`),
};

/** Qwen3-Coder's form; Seed-OSS writes the same calls in its own wrapper. */
export const QWEN3_CODER_FORM: MarkupForm = {
  format: 'qwen3-coder',
  tags: 'literal',
  wrapper: { open: OPEN, close: CLOSE },
  call: {
    start: '<function',
    opening: quotedOr('function', LOOKAHEAD.callName.value),
    close: FUNCTION_CLOSE,
    closeInValue: 'next-call',
    reopenFails: false,
    unnamed: 'write the function as <function=name>',
    unreadable:
      'the text inside <function=…> is not its parameters; write each argument as <parameter=key>value</parameter>, with nothing else between them',
  },
  parameter: {
    opening: quotedOr('parameter', LOOKAHEAD.parameterName.value),
    close: PARAMETER_CLOSE,
    reopens: PARAMETER,
  },
  key: 'trim',
  text: 'newlines',
  repeated: 'warn',
  jsonForm: false,
  empty: 'a <tool_call> block holds no <function=name>',
  recoveries: QWEN3_CALL_RECOVERIES,
};

/**
 * Qwen3-Coder's form: `<tool_call>`, `<function=name>`, `<parameter=key>value</parameter>`…,
 * `</function>`, `</tool_call>`. As Qwen's own parser does, a value loses one newline right
 * after its opening tag and one right before its closing tag; it is otherwise as written.
 */
export const qwen3Coder: BlockReader = {
  open: OPEN,
  anywhere: true,
  reads: { markup: QWEN3_CODER_FORM },
};

const BARE: MarkupForm = {
  ...QWEN3_CODER_FORM,
  wrapper: null,
  missingWrapper: QWEN3_CODER_RECOVERIES['missing-wrapper'],
  orphanClose: CLOSE,
};

/**
 * `<function=name>…</function>` at a line start with no `<tool_call>` around it: what some
 * Qwen3-Coder models write every time (often after a sentence and a blank line, still ending
 * with the orphan `</tool_call>`, which is then the call's text), and the form OpenHands and
 * SWE-agent prompt for. Read as a call, with a `missing-wrapper` warning.
 */
export const qwen3CoderBare: BlockReader = {
  open: FUNCTION,
  // `<function=name>{…}` is functionary's JSON body, not Qwen's tags.
  lineStart: { unless: FUNCTION_JSON_HEAD },
  reads: { markup: BARE },
};

/** A name `<function=…>` and `<parameter=…>` can hold. */
const TAG_NAME: NameRule = {
  maxLength: LOOKAHEAD.parameterName.value,
  nonEmpty: true,
  trimmed: true,
  forbidden: '>\n\r',
};

const TAGS = [OPEN, CLOSE, FUNCTION, FUNCTION_CLOSE, PARAMETER, PARAMETER_CLOSE];

/**
 * How Qwen3-Coder's template writes calls, one a block, each tag on a line of its own, in
 * `open` … `close` (Seed-OSS's wrapper); with `newlines`, each value on lines of its own too.
 */
export function qwenWritten(
  open: string,
  close: string,
  mode: 'newlines' | 'verbatim',
): WrittenForm {
  const newline = mode === 'newlines' ? '\n' : '';
  return {
    args: {
      kind: 'text',
      names: TAG_NAME,
      open: [PARAMETER, SLOT.key, `>${newline}`],
      close: `${newline}</parameter>`,
      after: '\n',
      mode,
      forbid: [...TAGS, open, close],
    },
    call: { before: [`${open}\n<function=`, SLOT.name, '>\n'], after: `</function>\n${close}` },
    open: '',
    close: '',
    separator: '\n',
    trigger: open,
  };
}

export const QWEN3_CODER_WRITTEN = qwenWritten(OPEN, CLOSE, 'newlines');
