import type { BlockReader } from '../block.js';
import type { CallFormat } from '../events.js';
import { type MarkupForm, namedOpening } from '../markup/form.js';
import { MarkupReader } from '../markup/reader.js';

/** The attribute `name="…"` (or in single quotes) of an opening tag: the name in group 1 or 2. */
const NAME_ATTRIBUTE = String.raw`\s{1,64}name\s{0,64}=\s{0,64}(?:"([^"]{0,256})"|'([^']{0,256})')`;

/**
 * `<invoke name="…">` calls with `<parameter name="…">` values, inside `open` … `close`; with
 * `prefix`, each tag's name begins with it (DeepSeek's `<｜DSML｜invoke`), and `attributes`
 * is what a parameter's opening may hold after its name (DSML's `string="true"`).
 */
function invokeForm(
  format: CallFormat,
  open: string,
  close: string,
  prefix = '',
  attributes = '',
): MarkupForm {
  const invoke = `<${prefix}invoke`;
  const parameter = `<${prefix}parameter`;
  return {
    format,
    tags: 'literal',
    wrapper: { open, close },
    call: {
      start: invoke,
      read: namedOpening(invoke, new RegExp(`${invoke}${NAME_ATTRIBUTE}\\s{0,64}>`, 'y')),
      close: `</${prefix}invoke>`,
      closeInValue: 'next-call',
      reopenFails: false,
      unnamed: `${invoke}> needs a name: ${invoke} name="tool_name">`,
      unclosed: `${invoke}> was not closed with </${prefix}invoke>`,
    },
    parameter: {
      read: namedOpening(
        parameter,
        new RegExp(`${parameter}${NAME_ATTRIBUTE}${attributes}\\s{0,64}>`, 'y'),
      ),
      close: () => `</${prefix}parameter>`,
      unclosed: `${parameter}> was not closed with </${prefix}parameter>`,
      reopens: parameter,
    },
    key: (name) => name,
    text: () => 'verbatim',
    nested: false,
    repeated: 'warn',
    jsonForm: false,
    empty: `a ${open} block holds no ${invoke} name="…">`,
  };
}

const ANTHROPIC = invokeForm('anthropic-xml', '<function_calls>', '</function_calls>');

/**
 * Anthropic's XML form: `<function_calls>`, then per call `<invoke name="tool">` with
 * `<parameter name="key">value</parameter>` children. Values are taken as written (no entity
 * decoding: this form does not escape).
 */
export const anthropicXml: BlockReader = {
  open: ANTHROPIC.wrapper?.open ?? '',
  anywhere: true,
  stream: (sink, limits) => new MarkupReader(ANTHROPIC, sink, limits),
};

const MINIMAX = invokeForm('minimax-m2', '<minimax:tool_call>', '</minimax:tool_call>');

/**
 * MiniMax-M2's form, as its chat template writes it: Anthropic's `<invoke>` calls inside
 * `<minimax:tool_call>` … `</minimax:tool_call>` (a special token of its vocabulary). Values
 * are as written; a schema coerces non-strings, which the template writes as JSON.
 */
export const minimaxM2: BlockReader = {
  open: MINIMAX.wrapper?.open ?? '',
  anywhere: true,
  stream: (sink, limits) => new MarkupReader(MINIMAX, sink, limits),
};

/** The marker DeepSeek's DSML tags begin with (U+FF5C, the full-width bar, on both sides). */
const DSML = '｜DSML｜';

/** Whether a DSML parameter's value is text (`"true"`) or JSON (`"false"`), as its template writes it. */
const DSML_STRING_ATTRIBUTE = String.raw`(?:\s{1,64}string\s{0,64}=\s{0,64}"[^"]{0,16}")?`;

const dsmlForm = (block: string) =>
  invokeForm(
    'deepseek-dsml',
    `<${DSML}${block}>`,
    `</${DSML}${block}>`,
    DSML,
    DSML_STRING_ATTRIBUTE,
  );

const DSML_V32 = dsmlForm('function_calls');
const DSML_V4 = dsmlForm('tool_calls');

/**
 * DeepSeek V3.2's DSML: Anthropic's form with each tag named after `｜DSML｜` (special text of
 * its vocabulary: `<｜DSML｜function_calls>`, `<｜DSML｜invoke name="f">`, `<｜DSML｜parameter
 * name="k" string="true">v</｜DSML｜parameter>`). `string="false"` marks a value its template
 * wrote as JSON (numbers, booleans, lists, objects): values are read as written, as
 * MiniMax-M2's, and a schema types them. DeepSeek V4 writes the same calls in
 * `<｜DSML｜tool_calls>`.
 */
export const deepseekDsml: BlockReader = {
  open: DSML_V32.wrapper?.open ?? '',
  anywhere: true,
  stream: (sink, limits) => new MarkupReader(DSML_V32, sink, limits),
};

/** DeepSeek V4's wrapper of the same DSML calls. */
export const deepseekDsmlV4: BlockReader = {
  open: DSML_V4.wrapper?.open ?? '',
  anywhere: true,
  stream: (sink, limits) => new MarkupReader(DSML_V4, sink, limits),
};

/** Step-3's tokens (ASCII `_`, full-width `｜`: not DeepSeek's `▁`). */
const STEP3_CALL = '<｜tool_call_begin｜>';
const STEP3_SEP = '<｜tool_sep｜>';
const STEP3_BASE = invokeForm(
  'step3',
  '<｜tool_calls_begin｜>',
  '<｜tool_calls_end｜>',
  'steptml:',
);

const STEP3: MarkupForm = {
  ...STEP3_BASE,
  call: {
    ...STEP3_BASE.call,
    // Each call is `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="…">`.
    start: STEP3_CALL,
    read: namedOpening(
      STEP3_CALL,
      new RegExp(
        `${STEP3_CALL}(?:\\s{0,64}function\\s{0,64}${STEP3_SEP})?\\s{0,64}<steptml:invoke${NAME_ATTRIBUTE}\\s{0,64}>`,
        'y',
      ),
      (match) =>
        match[0].includes(STEP3_SEP)
          ? undefined
          : `a call is written ${STEP3_CALL}function${STEP3_SEP}<steptml:invoke name="…">; read without function${STEP3_SEP}`,
    ),
    // The invoke's close and the call's token, as both peers read them; the token is special,
    // so the close counts wherever it stands (vLLM's tests write <｜tool_sep｜> after it).
    close: '</steptml:invoke><｜tool_call_end｜>',
    closeInValue: 'token',
    unnamed: `write the call as ${STEP3_CALL}function${STEP3_SEP}<steptml:invoke name="tool_name">`,
    unclosed: `${STEP3_CALL} was not closed with </steptml:invoke><｜tool_call_end｜>`,
  },
};

/**
 * StepFun Step-3's form (the first Step-3; 3.5 and 3.7-Flash write Qwen3-Coder's): calls in
 * `<｜tool_calls_begin｜>` … `<｜tool_calls_end｜>`, each `<｜tool_call_begin｜>function<｜tool_sep｜>`
 * then Anthropic's invoke with every tag named after `steptml:` (`<steptml:invoke name="f">`,
 * `<steptml:parameter name="k">v</steptml:parameter>`), then `<｜tool_call_end｜>`. The tokens
 * are special tokens of its vocabulary: the block opens anywhere. Values as written.
 */
export const step3: BlockReader = {
  open: STEP3.wrapper?.open ?? '',
  anywhere: true,
  stream: (sink, limits) => new MarkupReader(STEP3, sink, limits),
};
