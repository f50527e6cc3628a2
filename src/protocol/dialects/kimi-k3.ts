import type { AnswerMarkers, BlockReader, ThinkingTags } from '../block.js';
import { LOOKAHEAD } from '../lookahead.js';
import type { MarkupForm } from '../markup/form.js';
import { literalRecoveries } from './recoveries.js';
import { SLOT, type WrittenForm } from './written.js';

/** Kimi K3's XTML tokens: a tag is `<|open|>name attr="…"<|sep|>` … `<|close|>name<|sep|>`. */
const OPEN = '<|open|>';
const CLOSE = '<|close|>';
const SEP = '<|sep|>';
const TOOLS = { open: `${OPEN}tools${SEP}`, close: `${CLOSE}tools${SEP}` };
const CALL = `${OPEN}call`;
const CALL_CLOSE = `${CLOSE}call${SEP}`;
const ARGUMENT = `${OPEN}argument`;
const ARGUMENT_CLOSE = `${CLOSE}argument${SEP}`;

const BLANKS = LOOKAHEAD.markerBlanks.value;
/** An attribute `name="…"` after blanks, its value read by `value`. */
const attribute = (name: string, value: string) => String.raw`\s{1,${BLANKS}}${name}="${value}"`;
/** An attribute's value: at most `longest` characters, none a quote. */
const quoted = (longest: number) => `[^"]{0,${longest}}`;
/** The tag's end: blanks, then `<|sep|>`. */
const TAG_END = String.raw`\s{0,${BLANKS}}<\|sep\|>`;
/** An attribute read and not kept (the call's index, the value's type). */
const FLAG = quoted(LOOKAHEAD.markerFlag.value);

const FORM: MarkupForm = {
  format: 'kimi-k3',
  tags: 'literal',
  wrapper: TOOLS,
  call: {
    start: CALL,
    // `<|open|>call tool="name" index="1"<|sep|>`: the index (1, 2, … in a reply) is not kept.
    opening: {
      kind: 'named',
      prefix: CALL,
      pattern: new RegExp(
        String.raw`<\|open\|>call${attribute('tool', `(${quoted(LOOKAHEAD.callName.value)})`)}(?:${attribute('index', FLAG)})?${TAG_END}`,
        'y',
      ),
    },
    close: CALL_CLOSE,
    closeInValue: 'next-call',
    reopenFails: false,
    unnamed: `${CALL}${SEP} needs a tool: ${CALL} tool="tool_name" index="1"${SEP}`,
    unreadable: `the text inside ${CALL}${SEP} is not its arguments; write each as ${ARGUMENT} key="key" type="string"${SEP}value${ARGUMENT_CLOSE}, with nothing else between them`,
  },
  parameter: {
    // `<|open|>argument key="k" type="string"<|sep|>`: the type is the value's JSON type;
    // values are read as written, and a schema types them (as DSML's `string="…"`).
    opening: {
      kind: 'named',
      prefix: ARGUMENT,
      pattern: new RegExp(
        String.raw`<\|open\|>argument${attribute('key', `(${quoted(LOOKAHEAD.parameterName.value)})`)}(?:${attribute('type', FLAG)})?${TAG_END}`,
        'y',
      ),
    },
    close: ARGUMENT_CLOSE,
    reopens: ARGUMENT,
  },
  key: 'as-written',
  text: 'verbatim',
  repeated: 'warn',
  jsonForm: false,
  empty: `a ${TOOLS.open} block holds no ${CALL} tool="…"${SEP}`,
  recoveries: literalRecoveries(
    `${CALL}${SEP} was not closed with ${CALL_CLOSE}`,
    `${ARGUMENT}${SEP} was not closed with ${ARGUMENT_CLOSE}`,
  ),
};
export const KIMI_K3_RECOVERIES = FORM.recoveries;

/** Kimi K3's thinking channel (its prompt opens it; the model closes it). */
export const KIMI_K3_THINKING: ThinkingTags = [`${OPEN}think${SEP}`, `${CLOSE}think${SEP}`];

/** Kimi K3's answer: its response channel, and the close of its message. */
export const KIMI_K3_ANSWER: AnswerMarkers = {
  tokens: [`${OPEN}response${SEP}`, `${CLOSE}response${SEP}`, `${CLOSE}message${SEP}`],
  specialTokens: true,
};

/**
 * Moonshot Kimi K3's XTML form (vLLM's and SGLang's `kimi_k3`): `<|open|>tools<|sep|>`, per
 * call `<|open|>call tool="f" index="1"<|sep|>`, its arguments
 * `<|open|>argument key="k" type="string"<|sep|>v<|close|>argument<|sep|>`, then
 * `<|close|>call<|sep|>` and `<|close|>tools<|sep|>` (special tokens: the block opens
 * anywhere). A string is written raw, any other type as JSON.
 */
export const kimiK3: BlockReader = {
  open: TOOLS.open,
  anywhere: true,
  reads: { markup: FORM },
};

const TAGS = [TOOLS.open, TOOLS.close, CALL, CALL_CLOSE, ARGUMENT, ARGUMENT_CLOSE];

/** Kimi K3's calls as its template writes them: every token back to back, the index 1. */
export const KIMI_K3_WRITTEN: WrittenForm = {
  args: {
    kind: 'text',
    // Its template escapes `&` and `"` in a key (`&amp;`, `&quot;`), which the reader keeps.
    names: {
      maxLength: LOOKAHEAD.parameterName.value,
      nonEmpty: false,
      trimmed: false,
      forbidden: '"&',
    },
    open: [`${ARGUMENT} key="`, SLOT.key, '" type="', SLOT.valueType, `"${SEP}`],
    close: ARGUMENT_CLOSE,
    after: '',
    mode: 'verbatim',
    forbid: TAGS,
  },
  call: { before: [`${CALL} tool="`, SLOT.name, `" index="1"${SEP}`], after: CALL_CLOSE },
  open: TOOLS.open,
  close: TOOLS.close,
  separator: '',
  trigger: TOOLS.open,
};
