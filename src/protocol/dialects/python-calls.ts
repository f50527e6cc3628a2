import type { BlockReader, ThinkingTags } from '../block.js';
import type { BodyForm } from '../body/form.js';
import { Syntax } from '../body/model-json.js';
import { markdownFence } from './fence.js';
import { BODY_RECOVERIES, FENCE_RECOVERIES } from './recoveries.js';
import { PYTHON_CALL, SLOT, type WrittenForm } from './written.js';

/** The tokens LFM2 and MiniCPM3 write their calls between. */
const TOOL_CALL_START = '<|tool_call_start|>';
const TOOL_CALL_END = '<|tool_call_end|>';

/** LFM2's body, which `auto` reads in `<|tool_call_start|>` unless a fence begins it. */
export const LFM2: BodyForm = {
  format: 'lfm2',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: TOOL_CALL_START,
  close: TOOL_CALL_END,
  closeIsToken: true,
  syntax: Syntax.Python,
};

/**
 * Liquid LFM2's form: `<|tool_call_start|>[get_weather(city="Paris")]<|tool_call_end|>`, the
 * calls as a Python list (its own template), or as a JSON list of calls (llama.cpp's).
 */
export const lfm2: BlockReader = {
  open: LFM2.open,
  anywhere: true,
  reads: { body: LFM2 },
};

/** MiniCPM3's fence around its calls: read by the body engine, written by the row below. */
const FENCE = markdownFence('```python');

/** Its calls' recoveries, and its fence's (left out, or left open). */
export const MINICPM3_RECOVERIES = { ...BODY_RECOVERIES, ...FENCE_RECOVERIES };

/** MiniCPM3's body, which `auto` reads in `<|tool_call_start|>` when a fence begins it. */
export const MINICPM3: BodyForm = {
  format: 'minicpm3',
  recoveries: MINICPM3_RECOVERIES,
  kind: 'calls',
  open: TOOL_CALL_START,
  close: TOOL_CALL_END,
  syntax: Syntax.Python,
  sequence: true,
  fence: FENCE,
};

/**
 * MiniCPM3's form (OpenBMB's template and vLLM tool parser for MiniCPM3-4B; MiniCPM4-MCP
 * writes it too): `<|tool_call_start|>\n```python\nget_weather(city="Paris")\nnow()\n```\n
 * <|tool_call_end|>`, Python calls one a line in a fence, the values as JSON (`tojson`). Its
 * markers are no special tokens of MiniCPM3's tokenizer: a quoted string may hold them, and
 * the fence's end. Its thinking, `<|thought_start|>` … `<|thought_end|>`, is read as thinking
 * in every dialect.
 */
export const minicpm3: BlockReader = {
  open: MINICPM3.open,
  anywhere: true,
  reads: { body: MINICPM3 },
};

/** OLMo 3's body, which `auto` reads in `<function_calls>` when a name begins it. */
export const OLMO3: BodyForm = {
  format: 'olmo3',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '<function_calls>',
  close: '</function_calls>',
  syntax: Syntax.Python,
  sequence: true,
};

/**
 * OLMo 3's form: Python calls, one a line, in `<function_calls>` … `</function_calls>` (the
 * tag Anthropic's form uses: in `auto` a body that starts with a name is OLMo 3's). Its close
 * is a plain tag: a Python string (in either quote) can hold it.
 */
export const olmo3: BlockReader = {
  open: OLMO3.open,
  anywhere: true,
  reads: { body: OLMO3 },
};

const LLAMA4: BodyForm = {
  format: 'llama4',
  recoveries: BODY_RECOVERIES,
  kind: 'calls',
  open: '[',
  openIsBody: true,
  close: '',
  syntax: Syntax.Python,
};

/** `[` then a call's name and `(`. */
const PYTHON_CALL_HEAD = /\s*[A-Za-z_][\w.-]*\s*\(/y;

/**
 * Llama 4's (and other pythonic models') calls: a Python list of calls, `[get_weather(city=
 * "Paris"), now()]`, as a line of its own or right after the reply's text (its template
 * writes the text, then the list). It opens only when a name and `(` follow the `[` (a
 * Markdown link or bracketed thinking does not).
 */
export const llama4: BlockReader = {
  open: '[',
  lineStart: PYTHON_CALL_HEAD,
  midLine: PYTHON_CALL_HEAD,
  reads: { body: LLAMA4 },
};

/** LFM2's Python list (its template writes a JSON one, which the reader takes too). */
export const LFM2_WRITTEN: WrittenForm = {
  args: { kind: 'python', forbid: '<', comma: ', ' },
  call: PYTHON_CALL,
  open: `${LFM2.open}[`,
  close: `]${LFM2.close}`,
  separator: ', ',
  trigger: LFM2.open,
  tokens: [TOOL_CALL_START, TOOL_CALL_END],
};

/** MiniCPM3's calls as its template writes them: one a line in the fence, no blank after a comma. */
export const MINICPM3_WRITTEN: WrittenForm = {
  args: { kind: 'python', forbid: '', comma: ',' },
  call: PYTHON_CALL,
  open: `${MINICPM3.open}\n${FENCE.label}\n`,
  close: `\n${FENCE.close}\n${MINICPM3.close}`,
  separator: '\n',
  trigger: MINICPM3.open,
};

/** OLMo 3's calls as its template writes them: one a line between its tags' lines. */
export const OLMO3_WRITTEN: WrittenForm = {
  args: { kind: 'python', forbid: '', comma: ', ' },
  call: PYTHON_CALL,
  open: `${OLMO3.open}\n`,
  close: `\n${OLMO3.close}`,
  separator: '\n',
  trigger: OLMO3.open,
};

/** The special tokens Llama 4 may write around its list (vLLM's llama4_pythonic strips them). */
const LLAMA4_TAGGED: BodyForm = {
  ...LLAMA4,
  open: '<|python_start|>',
  openIsBody: false,
  close: '<|python_end|>',
  closeIsToken: true,
};

/** After `<|python_start|>`: a list whose first item is a call (nanochat writes code there). */
const PYTHON_LIST_HEAD = /\s*\[\s*[A-Za-z_][\w.-]*\s*\(/y;

/**
 * Llama 4's list between `<|python_start|>` and `<|python_end|>`, as the model sometimes writes
 * it: the tokens are the block's markers, and a missing `<|python_end|>` at the end is told as
 * any missing close. Read in `auto` too: the opening is a special token, and it opens only
 * where a list of calls follows it.
 */
export const llama4Tagged: BlockReader = {
  open: LLAMA4_TAGGED.open,
  lineStart: PYTHON_LIST_HEAD,
  midLine: PYTHON_LIST_HEAD,
  reads: { body: LLAMA4_TAGGED },
};

/** Llama 4's list; a lazy grammar engages on `[` and a tool's name and `(`. */
export const LLAMA4_WRITTEN: WrittenForm = {
  args: { kind: 'python', forbid: '', comma: ', ' },
  call: PYTHON_CALL,
  open: LLAMA4.open,
  close: ']',
  separator: ', ',
  trigger: [LLAMA4.open, SLOT.name, '('],
};

/** MiniCPM3's thoughts. */
export const MINICPM3_THINKING: ThinkingTags = ['<|thought_start|>', '<|thought_end|>'];
