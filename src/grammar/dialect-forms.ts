import type { Dialect } from '../protocol/index.js';
import type { ValueText } from '../protocol/markup/value-text.js';
import type { JsonSchema } from '../tools/index.js';
import { isElementName } from './xml-values.js';

/** How a family writes one call's arguments. */
export type ArgumentsForm =
  /** A JSON object (`{"key": value}`); `forbid`: characters strings escape (`<` before a special-token close). */
  | { kind: 'json'; forbid: string }
  /** Python keyword arguments, `name(key=value, …)`. */
  | { kind: 'python'; forbid: string }
  /** Gemma 4's `{key:<|"|>text<|"|>,n:3}`. */
  | { kind: 'gemma' }
  /** One element per argument, its text the value. */
  | {
      kind: 'text';
      /**
       * The opening of argument `key` (of `schema`, when the form says its type), or undefined
       * when the form cannot name it.
       */
      open(key: string, schema?: JsonSchema): string | undefined;
      close(key: string): string;
      /** How the reader takes the value's text. */
      mode(key: string): ValueText;
      /** Text the value of `key` may not hold: the form's tags (`tools`: the tools' names). */
      forbid(key: string, tools: readonly string[]): readonly string[];
    };

/**
 * A family's calls as its chat template writes them: `call(name)` is what one call writes
 * before and after its arguments, `open`/`close` the block around all calls of a reply (for the families
 * that write one block), `separator` stands between two calls. `maxCalls` is what the form
 * holds in one reply (gpt-oss's `<|call|>` ends it). `trigger` is the text a lazy grammar
 * engages on: the family's own opening (a tool's, for forms without one).
 */
export interface DialectForm {
  args: ArgumentsForm;
  call(name: string): readonly [string, string];
  open: string;
  close: string;
  separator: string;
  maxCalls?: number;
  trigger: (toolName: string) => string;
  /** The trigger must stand at a line start (a tag that is no special token). */
  triggerAtLineStart?: boolean;
}

const JSON_PLAIN = { kind: 'json', forbid: '' } as const;
const JSON_IN_TOKENS = { kind: 'json', forbid: '<' } as const;
const PYTHON_IN_TOKENS = { kind: 'python', forbid: '<' } as const;
const PYTHON_PLAIN = { kind: 'python', forbid: '' } as const;

const quotedName = (name: string) => JSON.stringify(name);

/** `{"name": "f", "arguments": …}`, the JSON call of Hermes and the list families. */
const nameAndArguments = (name: string): readonly [string, string] => [
  `{"name": ${quotedName(name)}, "arguments": `,
  '}',
];

const fixed = (trigger: string) => () => trigger;

/** Element-text arguments: `<open key>value<close>` per argument, one a line. */
function elements(
  open: (key: string, schema?: JsonSchema) => string | undefined,
  close: string | ((key: string) => string),
  mode: (key: string) => ValueText,
  forbid: readonly string[] | ((key: string, tools: readonly string[]) => readonly string[]),
): ArgumentsForm {
  return {
    kind: 'text',
    open,
    close: typeof close === 'string' ? () => close : close,
    mode,
    forbid: typeof forbid === 'function' ? forbid : () => forbid,
  };
}

const noNewlineOrAngle = (key: string) =>
  key.length > 0 && key.length <= 256 && key === key.trim() && !/[>\n\r]/.test(key);

const QWEN_TAGS = [
  '<tool_call>',
  '</tool_call>',
  '<function=',
  '</function>',
  '<parameter=',
  '</parameter>',
];

/**
 * Anthropic's `<invoke>` calls in `open` … `close`; with `prefix` (DSML's `｜DSML｜`) before
 * each tag's name, and each parameter marked `string="true"` for a string, `"false"` for
 * anything else (as DeepSeek's template writes it from the value).
 */
function invokeForm(open: string, close: string, prefix = ''): DialectForm {
  const marked = prefix !== '';
  return {
    args: elements(
      (key, schema) =>
        key.length <= 256 && !key.includes('"')
          ? `<${prefix}parameter name="${key}"${marked ? ` string="${isStringSchema(schema)}"` : ''}>`
          : undefined,
      `</${prefix}parameter>`,
      () => 'verbatim',
      [
        open,
        close,
        `<${prefix}invoke`,
        `</${prefix}invoke>`,
        `<${prefix}parameter`,
        `</${prefix}parameter>`,
      ],
    ),
    call: (name) => [`<${prefix}invoke name="${name}">\n`, `</${prefix}invoke>\n`],
    open: `${open}\n`,
    close,
    separator: '',
    trigger: fixed(open),
  };
}

/** Whether a schema's values are strings (a schema without a type too: its value is text). */
const isStringSchema = (schema: JsonSchema | undefined) =>
  schema?.type === undefined || schema.type === 'string';

function qwenForm(open: string, close: string, mode: ValueText): DialectForm {
  return {
    args: elements(
      (key) =>
        noNewlineOrAngle(key) ? `<parameter=${key}>${mode === 'newlines' ? '\n' : ''}` : undefined,
      mode === 'newlines' ? '\n</parameter>' : '</parameter>',
      () => mode,
      [...QWEN_TAGS, open, close],
    ),
    call: (name) => [`${open}\n<function=${name}>\n`, `</function>\n${close}`],
    open: '',
    close: '',
    separator: '\n',
    trigger: fixed(open),
  };
}

/** A JSON list of calls between two markers. */
function jsonList(open: string, close: string, forbid: string): DialectForm {
  return {
    args: { kind: 'json', forbid },
    call: nameAndArguments,
    open: `${open}[`,
    close: `]${close}`,
    separator: ', ',
    trigger: fixed(open),
  };
}

const pythonCall = (name: string): readonly [string, string] => [name, ''];

/**
 * Each family's form. Where a family writes several forms (Mistral's list and named calls,
 * DeepSeek's V3 and V3.1, functionary's v3.1 and v3.2), the one its newest template writes.
 */
export const DIALECT_FORMS: Record<Exclude<Dialect, 'tagcall'>, DialectForm> = {
  'anthropic-xml': invokeForm('<function_calls>', '</function_calls>'),
  'minimax-m2': invokeForm('<minimax:tool_call>', '</minimax:tool_call>'),
  'deepseek-dsml': invokeForm('<｜DSML｜function_calls>', '</｜DSML｜function_calls>', '｜DSML｜'),
  step3: {
    args: elements(
      (key) =>
        key.length <= 256 && !key.includes('"') ? `<steptml:parameter name="${key}">` : undefined,
      '</steptml:parameter>',
      () => 'verbatim',
      [
        '<｜tool_calls_begin｜>',
        '<｜tool_calls_end｜>',
        '<｜tool_call_begin｜>',
        '<｜tool_call_end｜>',
        '<｜tool_sep｜>',
        '<steptml:invoke',
        '</steptml:invoke>',
        '<steptml:parameter',
        '</steptml:parameter>',
      ],
    ),
    // As vLLM's and SGLang's Step-3 readers take it; no public template was found.
    call: (name) => [
      `<｜tool_call_begin｜>function<｜tool_sep｜><steptml:invoke name="${name}">`,
      '</steptml:invoke><｜tool_call_end｜>',
    ],
    open: '<｜tool_calls_begin｜>',
    close: '<｜tool_calls_end｜>',
    separator: '',
    trigger: fixed('<｜tool_calls_begin｜>'),
  },
  'qwen3-coder': qwenForm('<tool_call>', '</tool_call>', 'newlines'),
  'seed-oss': qwenForm('<seed:tool_call>', '</seed:tool_call>', 'verbatim'),
  glm: {
    args: elements(
      (key) =>
        key.length > 0 && key.length <= 256 && key === key.trim() && !key.includes('<')
          ? `<arg_key>${key}</arg_key>\n<arg_value>`
          : undefined,
      '</arg_value>',
      () => 'verbatim',
      ['<tool_call>', '</tool_call>', '<arg_key>', '</arg_key>', '<arg_value>', '</arg_value>'],
    ),
    call: (name) => [`<tool_call>${name}\n`, '</tool_call>'],
    open: '',
    close: '',
    separator: '\n',
    trigger: fixed('<tool_call>'),
  },
  cline: {
    // A value holds neither its own close nor a tool's (the reader takes a close where the
    // next parameter or the tool's close follows it; the grammar leaves no doubt).
    args: elements(
      (key) => (isElementName(key) ? `<${key}>` : undefined),
      (key) => `</${key}>`,
      (key) => (key === 'content' || key === 'diff' ? 'newlines' : 'trim'),
      (key, tools) => [`</${key}>`, ...tools.map((name) => `</${name}>`)],
    ),
    call: (name) => [`<${name}>\n`, `</${name}>`],
    open: '',
    close: '',
    separator: '\n',
    trigger: (name) => `<${name}>`,
    triggerAtLineStart: true,
  },
  deepseek: {
    args: JSON_IN_TOKENS,
    call: (name) => [`<｜tool▁call▁begin｜>${name}<｜tool▁sep｜>`, '<｜tool▁call▁end｜>'],
    open: '<｜tool▁calls▁begin｜>',
    close: '<｜tool▁calls▁end｜>',
    separator: '',
    trigger: fixed('<｜tool▁calls▁begin｜>'),
  },
  'kimi-k2': {
    args: JSON_IN_TOKENS,
    call: (name) => [
      `<|tool_call_begin|>functions.${name}:0<|tool_call_argument_begin|>`,
      '<|tool_call_end|>',
    ],
    open: '<|tool_calls_section_begin|>',
    close: '<|tool_calls_section_end|>',
    separator: '',
    trigger: fixed('<|tool_calls_section_begin|>'),
  },
  hermes: {
    args: JSON_PLAIN,
    call: (name) => {
      const [before, after] = nameAndArguments(name);
      return [`<tool_call>\n${before}`, `${after}\n</tool_call>`];
    },
    open: '',
    close: '',
    separator: '\n',
    trigger: fixed('<tool_call>'),
  },
  nemotron: jsonList('<TOOLCALL>', '</TOOLCALL>', ''),
  jamba: jsonList('<tool_calls>', '</tool_calls>', ''),
  granite: jsonList('<|tool_call|>', '', '<'),
  'command-r7b': {
    args: JSON_IN_TOKENS,
    call: (name) => [`{"tool_call_id": "0", "tool_name": ${quotedName(name)}, "parameters": `, '}'],
    open: '<|START_ACTION|>[',
    close: ']<|END_ACTION|>',
    separator: ', ',
    trigger: fixed('<|START_ACTION|>'),
  },
  mistral: {
    args: JSON_IN_TOKENS,
    call: (name) => [`[TOOL_CALLS]${name}[ARGS]`, ''],
    open: '',
    close: '',
    separator: '',
    trigger: fixed('[TOOL_CALLS]'),
  },
  'llama3-json': {
    args: JSON_IN_TOKENS,
    call: (name) => [`{"name": ${quotedName(name)}, "parameters": `, '}'],
    open: '<|python_tag|>',
    close: '',
    separator: '',
    maxCalls: 1,
    trigger: fixed('<|python_tag|>'),
  },
  'gpt-oss': {
    args: JSON_IN_TOKENS,
    call: (name) => [
      `<|channel|>commentary to=functions.${name} <|constrain|>json<|message|>`,
      '<|call|>',
    ],
    open: '',
    close: '',
    separator: '',
    maxCalls: 1,
    trigger: fixed('<|channel|>commentary to=functions.'),
  },
  functionary: {
    args: JSON_PLAIN,
    call: (name) => [`<function=${name}>`, '</function>'],
    open: '',
    close: '',
    separator: '\n',
    trigger: fixed('<function='),
  },
  lfm2: {
    args: PYTHON_IN_TOKENS,
    call: pythonCall,
    open: '<|tool_call_start|>[',
    close: ']<|tool_call_end|>',
    separator: ', ',
    trigger: fixed('<|tool_call_start|>'),
  },
  minicpm3: {
    args: PYTHON_PLAIN,
    call: pythonCall,
    open: '<|tool_call_start|>\n```python\n',
    close: '\n```\n<|tool_call_end|>',
    separator: '\n',
    trigger: fixed('<|tool_call_start|>'),
  },
  olmo3: {
    args: PYTHON_PLAIN,
    call: pythonCall,
    open: '<function_calls>\n',
    close: '\n</function_calls>',
    separator: '\n',
    trigger: fixed('<function_calls>'),
  },
  llama4: {
    args: PYTHON_PLAIN,
    call: pythonCall,
    open: '[',
    close: ']',
    separator: ', ',
    trigger: (name) => `[${name}(`,
  },
  functools: {
    args: JSON_PLAIN,
    call: nameAndArguments,
    open: 'functools[',
    close: ']',
    separator: ', ',
    trigger: fixed('functools['),
  },
  xlam: {
    args: JSON_PLAIN,
    call: nameAndArguments,
    open: '[',
    close: ']',
    separator: ', ',
    trigger: fixed('[{"name": '),
  },
  apertus: {
    args: JSON_IN_TOKENS,
    // Each call an object whose only key is the tool's name.
    call: (name) => [`{${quotedName(name)}: `, '}'],
    open: '<|tools_prefix|>[',
    close: ']<|tools_suffix|>',
    separator: ', ',
    trigger: fixed('<|tools_prefix|>'),
  },
  internlm: {
    args: JSON_IN_TOKENS,
    // One block a call, one after another, as its template writes them.
    call: (name) => [
      `<|action_start|><|plugin|>\n{"name": ${quotedName(name)}, "arguments": `,
      '}<|action_end|>',
    ],
    open: '',
    close: '',
    separator: '',
    trigger: fixed('<|action_start|><|plugin|>'),
  },
  gigachat: {
    args: JSON_IN_TOKENS,
    // One call a reply, a turn of the `function call` role after the reply's text.
    call: (name) => [
      `<|message_sep|>\n\nfunction call<|role_sep|>\n{"name": ${quotedName(name)}, "arguments": `,
      '}',
    ],
    open: '',
    close: '',
    separator: '',
    maxCalls: 1,
    trigger: fixed('<|message_sep|>'),
  },
  longcat: {
    args: JSON_PLAIN,
    // Hermes' object in LongCat's own tags; no public template was found to say more.
    call: (name) => {
      const [before, after] = nameAndArguments(name);
      return [`<longcat_tool_call>${before}`, `${after}</longcat_tool_call>`];
    },
    open: '',
    close: '',
    separator: '\n',
    trigger: fixed('<longcat_tool_call>'),
  },
  gemma4: {
    args: { kind: 'gemma' },
    call: (name) => [`<|tool_call>call:${name}`, '<tool_call|>'],
    open: '',
    close: '',
    separator: '',
    trigger: fixed('<|tool_call>'),
  },
};
