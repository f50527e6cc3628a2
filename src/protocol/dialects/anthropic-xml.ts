import type { BlockReader, ThinkingTags } from '../block.js';
import type { CallFormat } from '../events.js';
import { LOOKAHEAD } from '../lookahead.js';
import type { MarkupForm } from '../markup/form.js';
import { literalRecoveries, missingWrapper, recoveryRow } from './recoveries.js';
import { SLOT, type WrittenElements, type WrittenForm } from './written.js';

/** Blanks between the parts of an opening tag, at most. */
const BLANKS = LOOKAHEAD.markerBlanks.value;

/**
 * The attribute `name="…"` (or in single quotes) of an opening tag, a name of at most `longest`
 * characters: the name in group 1 or 2.
 */
const nameAttribute = (longest: number) =>
  String.raw`\s{1,${BLANKS}}name\s{0,${BLANKS}}=\s{0,${BLANKS}}(?:"([^"]{0,${longest}})"|'([^']{0,${longest}})')`;
const CALL_NAME = nameAttribute(LOOKAHEAD.callName.value);
const PARAMETER_NAME = nameAttribute(LOOKAHEAD.parameterName.value);

/**
 * `<invoke name="…">` calls with `<parameter name="…">` values, inside `open` … `close`; with
 * `prefix`, each tag's name begins with it (DeepSeek's `<｜DSML｜invoke`), and `attributes`
 * is what a parameter's opening may hold after its name (DSML's `string="true"`); with
 * `selfCloses`, `<invoke name="f"/>` is a call without arguments (group 3 holds its `/`).
 */
export function invokeForm(
  format: CallFormat,
  open: string,
  close: string,
  prefix = '',
  attributes = '',
  selfCloses = false,
): MarkupForm {
  const invoke = `<${prefix}invoke`;
  const parameter = `<${prefix}parameter`;
  const end = selfCloses ? '(/)?>' : '>';
  return {
    format,
    tags: 'literal',
    wrapper: { open, close },
    call: {
      start: invoke,
      opening: {
        kind: 'named',
        prefix: invoke,
        pattern: new RegExp(`${invoke}${CALL_NAME}\\s{0,${BLANKS}}${end}`, 'y'),
        ...(selfCloses ? { selfClosing: { group: 3, test: /\// } } : {}),
      },
      close: `</${prefix}invoke>`,
      closeInValue: 'next-call',
      reopenFails: false,
      unnamed: `${invoke}> needs a name: ${invoke} name="tool_name">`,
      unreadable: `the text inside ${invoke}> is not its parameters; write each argument as ${parameter} name="key">value</${prefix}parameter>, with nothing else between them`,
    },
    parameter: {
      opening: {
        kind: 'named',
        prefix: parameter,
        pattern: new RegExp(`${parameter}${PARAMETER_NAME}${attributes}\\s{0,${BLANKS}}>`, 'y'),
      },
      close: `</${prefix}parameter>`,
      reopens: parameter,
    },
    key: 'as-written',
    text: 'verbatim',
    repeated: 'warn',
    jsonForm: false,
    empty: `a ${open} block holds no ${invoke} name="…">`,
    recoveries: literalRecoveries(
      `${invoke}> was not closed with </${prefix}invoke>`,
      `${parameter}> was not closed with </${prefix}parameter>`,
    ),
  };
}

const ANTHROPIC_OPEN = '<function_calls>';
const ANTHROPIC_CLOSE = '</function_calls>';
export const ANTHROPIC = invokeForm('anthropic-xml', ANTHROPIC_OPEN, ANTHROPIC_CLOSE);
export const ANTHROPIC_RECOVERIES = ANTHROPIC.recoveries;

/**
 * Anthropic's XML form: `<function_calls>`, then per call `<invoke name="tool">` with
 * `<parameter name="key">value</parameter>` children. Values are taken as written (no entity
 * decoding: this form does not escape).
 */
export const anthropicXml: BlockReader = {
  open: ANTHROPIC.wrapper?.open ?? '',
  anywhere: true,
  reads: { markup: ANTHROPIC },
};

const MINIMAX_OPEN = '<minimax:tool_call>';
const MINIMAX_CLOSE = '</minimax:tool_call>';
const MINIMAX = invokeForm('minimax-m2', MINIMAX_OPEN, MINIMAX_CLOSE);
export const MINIMAX_RECOVERIES = MINIMAX.recoveries;

/**
 * MiniMax-M2's form, as its chat template writes it: Anthropic's `<invoke>` calls inside
 * `<minimax:tool_call>` … `</minimax:tool_call>` (a special token of its vocabulary). Values
 * are as written; a schema coerces non-strings, which the template writes as JSON.
 */
export const minimaxM2: BlockReader = {
  open: MINIMAX.wrapper?.open ?? '',
  anywhere: true,
  reads: { markup: MINIMAX },
};

/** The marker DeepSeek's DSML tags begin with (U+FF5C, the full-width bar, on both sides). */
const DSML = '｜DSML｜';

/** Whether a DSML parameter's value is text (`"true"`) or JSON (`"false"`), as its template writes it. */
const DSML_STRING_ATTRIBUTE = String.raw`(?:\s{1,${BLANKS}}string\s{0,${BLANKS}}=\s{0,${BLANKS}}"[^"]{0,${LOOKAHEAD.markerFlag.value}}")?`;

/**
 * DSML's shape under `marker`: `<{marker}{block}>` around `<{marker}invoke name="…">` calls,
 * each parameter `<{marker}parameter name="…" string="…">` (the attribute optional); a call
 * without arguments may close itself (`<{marker}invoke name="f"/>`, as SGLang reads V4's).
 * Its recoveries name the block as the wrapper a bare call (`bareInvokeForm`) left out.
 */
export function markedInvokeForm(format: CallFormat, marker: string, block: string): MarkupForm {
  const open = `<${marker}${block}>`;
  const close = `</${marker}${block}>`;
  const form = invokeForm(format, open, close, marker, DSML_STRING_ATTRIBUTE, true);
  return {
    ...form,
    recoveries: {
      ...form.recoveries,
      'missing-wrapper': missingWrapper(`write the call inside ${open} … ${close}`),
    },
  };
}

/**
 * A marked form's call with no block around it (`<｜DSML｜invoke name="f">…</｜DSML｜invoke>`
 * alone, as SGLang's streaming reader and vLLM's V4 reader take it): one call a block, read
 * with its `missing-wrapper` row; the block's close a model still writes after it (vLLM's
 * test_missing_start_wrapper_recovers_declared_tool) is the call's text.
 */
export const bareInvokeForm = (form: MarkupForm): MarkupForm => ({
  ...form,
  wrapper: null,
  missingWrapper: form.recoveries['missing-wrapper'],
  orphanClose: form.wrapper?.close,
});

/** What confirms a bare invoke: its `name=`, so prose naming the tag (`<｜DSML｜invoke>`) stays text. */
const NAMES_THE_CALL = new RegExp(String.raw`\s{1,${BLANKS}}name\s{0,${BLANKS}}=`, 'y');

/**
 * The reader of `form`'s bare calls: its invoke is special text of the family's vocabulary,
 * so it opens anywhere in a line, as the block does, where its `name=` follows.
 */
export const bareInvokeReader = (form: MarkupForm): BlockReader => ({
  open: form.call.start,
  lineStart: NAMES_THE_CALL,
  midLine: NAMES_THE_CALL,
  reads: { markup: bareInvokeForm(form) },
});

const dsmlForm = (block: string) => markedInvokeForm('deepseek-dsml', DSML, block);
/** The wrapper DeepSeek V3.2's template writes (V4's is `tool_calls`). */
const DSML_V32_BLOCK = 'function_calls';

const DSML_V32 = dsmlForm(DSML_V32_BLOCK);
const DSML_V4 = dsmlForm('tool_calls');
/**
 * Both wrappers' calls are the same: so are their recoveries; a bare call is told to write
 * V4's wrapper, the newer template's.
 */
export const DSML_RECOVERIES = DSML_V4.recoveries;

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
  reads: { markup: DSML_V32 },
};

/** DeepSeek V4's wrapper of the same DSML calls. */
export const deepseekDsmlV4: BlockReader = {
  open: DSML_V4.wrapper?.open ?? '',
  anywhere: true,
  reads: { markup: DSML_V4 },
};

/**
 * A DSML call with no wrapper around it (`<｜DSML｜invoke name="f">…</｜DSML｜invoke>` alone),
 * as SGLang's streaming reader reads it: a call, with `missing-wrapper`.
 */
export const deepseekDsmlBare = bareInvokeReader(DSML_V4);

/** Step-3's tokens (ASCII `_`, full-width `｜`: not DeepSeek's `▁`). */
const STEP3_CALL = '<｜tool_call_begin｜>';
const STEP3_SEP = '<｜tool_sep｜>';
const STEP3_OPEN = '<｜tool_calls_begin｜>';
const STEP3_CLOSE = '<｜tool_calls_end｜>';
const STEP3_PREFIX = 'steptml:';
/** What closes one call: the invoke's close and the call's token. */
const STEP3_CALL_END = '<｜tool_call_end｜>';
const STEP3_CALL_CLOSE = `</${STEP3_PREFIX}invoke>${STEP3_CALL_END}`;
const STEP3_BASE = invokeForm('step3', STEP3_OPEN, STEP3_CLOSE, STEP3_PREFIX);

export const STEP3_RECOVERIES = {
  ...STEP3_BASE.recoveries,
  'unclosed-call': recoveryRow(
    'unclosed-element',
    `${STEP3_CALL} was not closed with ${STEP3_CALL_CLOSE}; it ends at {ending}`,
  ),
  // A call written without `function<｜tool_sep｜>`, as vLLM's tests write it.
  'stray-in-opening': recoveryRow(
    'stray-text',
    `a call is written ${STEP3_CALL}function${STEP3_SEP}<steptml:invoke name="…">; read without function${STEP3_SEP}`,
  ),
};

const STEP3: MarkupForm = {
  ...STEP3_BASE,
  recoveries: STEP3_RECOVERIES,
  call: {
    ...STEP3_BASE.call,
    // Each call is `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="…">`.
    start: STEP3_CALL,
    opening: {
      kind: 'named',
      prefix: STEP3_CALL,
      pattern: new RegExp(
        `${STEP3_CALL}(?:\\s{0,${BLANKS}}function\\s{0,${BLANKS}}${STEP3_SEP})?\\s{0,${BLANKS}}<${STEP3_PREFIX}invoke${CALL_NAME}\\s{0,${BLANKS}}>`,
        'y',
      ),
      // Without `function<｜tool_sep｜>` before the invoke: read, with the row's warning.
      stray: [
        { when: { group: 0, test: new RegExp(STEP3_SEP) }, recovery: null },
        { recovery: STEP3_RECOVERIES['stray-in-opening'] },
      ],
    },
    // The invoke's close and the call's token, as both peers read them; the token is special,
    // so the close counts wherever it stands (vLLM's tests write <｜tool_sep｜> after it).
    close: STEP3_CALL_CLOSE,
    closeInValue: 'token',
    unnamed: `write the call as ${STEP3_CALL}function${STEP3_SEP}<steptml:invoke name="tool_name">`,
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
  reads: { markup: STEP3 },
};

/**
 * Parameters as the `<invoke>` forms write them, `<{prefix}parameter name="key">value
 * </{prefix}parameter>` then `after`; with `marked`, the opening says `string="true"` for
 * text and `"false"` for anything else (DSML's, as DeepSeek's template writes it from the
 * value). A value holds none of `tags`.
 */
function invokeParameters(
  prefix: string,
  marked: boolean,
  after: string,
  tags: readonly string[],
): WrittenElements {
  return {
    kind: 'text',
    names: {
      maxLength: LOOKAHEAD.parameterName.value,
      nonEmpty: false,
      trimmed: false,
      forbidden: '"',
    },
    open: [
      `<${prefix}parameter name="`,
      SLOT.key,
      ...(marked ? ['" string="', SLOT.isString] : []),
      '">',
    ],
    close: `</${prefix}parameter>`,
    after,
    mode: 'verbatim',
    forbid: tags,
  };
}

/**
 * How the `<invoke>` forms write calls: in `open` … `close`, each invoke and each parameter on
 * a line of its own; with `prefix` (DSML's `｜DSML｜`) before each tag's name and each
 * parameter marked `string="…"`.
 */
export function invokeWritten(open: string, close: string, prefix = ''): WrittenForm {
  const tags = [
    open,
    close,
    `<${prefix}invoke`,
    `</${prefix}invoke>`,
    `<${prefix}parameter`,
    `</${prefix}parameter>`,
  ];
  return {
    args: invokeParameters(prefix, prefix !== '', '\n', tags),
    call: { before: [`<${prefix}invoke name="`, SLOT.name, '">\n'], after: `</${prefix}invoke>\n` },
    open: `${open}\n`,
    close,
    separator: '',
    trigger: open,
  };
}

export const ANTHROPIC_WRITTEN = invokeWritten(ANTHROPIC_OPEN, ANTHROPIC_CLOSE);
export const MINIMAX_WRITTEN = invokeWritten(MINIMAX_OPEN, MINIMAX_CLOSE);
export const DSML_WRITTEN = invokeWritten(
  `<${DSML}${DSML_V32_BLOCK}>`,
  `</${DSML}${DSML_V32_BLOCK}>`,
  DSML,
);

/**
 * Step-3's calls as vLLM's and SGLang's Step-3 readers and tests write them (no public
 * template was found): every tag and token back to back.
 */
export const STEP3_WRITTEN: WrittenForm = {
  args: invokeParameters(STEP3_PREFIX, false, '', [
    STEP3_OPEN,
    STEP3_CLOSE,
    STEP3_CALL,
    STEP3_CALL_END,
    STEP3_SEP,
    `<${STEP3_PREFIX}invoke`,
    `</${STEP3_PREFIX}invoke>`,
    `<${STEP3_PREFIX}parameter`,
    `</${STEP3_PREFIX}parameter>`,
  ]),
  call: {
    before: [`${STEP3_CALL}function${STEP3_SEP}<${STEP3_PREFIX}invoke name="`, SLOT.name, '">'],
    after: STEP3_CALL_CLOSE,
  },
  open: STEP3_OPEN,
  close: STEP3_CLOSE,
  separator: '',
  trigger: STEP3_OPEN,
  tokens: [STEP3_OPEN, STEP3_CLOSE, STEP3_CALL, STEP3_CALL_END, STEP3_SEP],
};

/** Claude's thinking. */
export const ANTHROPIC_THINKING: ThinkingTags = ['<thinking>', '</thinking>'];
