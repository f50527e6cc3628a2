/**
 * Renders conversations with tool calls through real chat templates (fixtures/templates/,
 * see SOURCES.md there) with @huggingface/jinja, and keeps each assistant turn as the model
 * would have written it, with the calls it holds: the dialect fixtures in fixtures/rendered/.
 *
 *   npm run fixtures:render     # writes fixtures/rendered/ again
 *
 * The values are the hard ones: each format's own closing tags, code with `<` and `&`,
 * unicode, empty and newline-only values, nested JSON, numbers and booleans.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Template } from '@huggingface/jinja';

const ROOT = fileURLToPath(new URL('../fixtures/', import.meta.url));

type Json = string | number | boolean | null | Json[] | { [key: string]: Json };

export interface ExpectedCall {
  toolName: string;
  arguments: { [key: string]: Json };
}

export const TOOLS = [
  {
    name: 'write_file',
    description: 'Write a file in the workspace.',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
      required: ['path', 'content'],
    },
  },
  {
    name: 'run',
    description: 'Run a shell command.',
    parameters: {
      type: 'object',
      properties: {
        command: { type: 'string' },
        timeout: { type: 'integer' },
        background: { type: 'boolean' },
      },
      required: ['command'],
    },
  },
  {
    name: 'search',
    description: 'Search the code.',
    parameters: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        filters: { type: 'object' },
        limit: { type: 'integer' },
      },
      required: ['query'],
    },
  },
  {
    name: 'note',
    description: 'Keep a note.',
    parameters: { type: 'object', properties: { text: { type: 'string' } } },
  },
] as const;

const TEST_FILE = [
  'import { parse } from "../src/parse";',
  "// Each model's closing tags, in strings: values, not markup.",
  'const tags = ["</parameter>", "</function>", "</tool_call>", "</invoke>", "</minimax:tool_call>"];',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the written file holds a template literal
  'if (a < b && b > c) console.log(`${tags.length} tags & more`);',
  'test("é 🎉 日本語", () => expect(parse("<tool_call>")).toEqual([]));',
].join('\n');

interface Conversation {
  name: string;
  user: string;
  content: string;
  reasoning: string;
  calls: ExpectedCall[];
}

export const CONVERSATIONS: readonly Conversation[] = [
  {
    name: 'closing-tags-in-code',
    user: 'Add a test for the parser.',
    content: 'I will write the test file.',
    reasoning: 'The test must hold every closing tag as a string.',
    calls: [
      { toolName: 'write_file', arguments: { path: 'test/parse.test.ts', content: TEST_FILE } },
    ],
  },
  {
    name: 'numbers-booleans-nested-json',
    user: 'List the files, and find the parser.',
    content: 'Two things at once.',
    reasoning: 'Run ls and search in parallel.',
    calls: [
      {
        toolName: 'run',
        arguments: { command: 'ls -la && echo "<done>" > out.txt', timeout: 30, background: false },
      },
      {
        toolName: 'search',
        arguments: {
          query: 'tool_call </tool_call> parser',
          filters: { lang: 'ts', paths: ['src', 'test'], exact: true },
          limit: 5,
        },
      },
    ],
  },
  {
    name: 'empty-newlines-unicode',
    user: 'Start an empty note and a blank page.',
    content: '',
    reasoning: 'Empty values are values too.',
    calls: [
      { toolName: 'note', arguments: { text: '' } },
      { toolName: 'write_file', arguments: { path: 'docs/ünïcödé 日本語 🎉.md', content: '\n\n' } },
    ],
  },
  {
    // One call, no quote and no newline in its values: what every template can write, those
    // that allow one call a turn (Llama 3.3, gpt-oss) and those that do not escape quotes
    // in Python calls (Llama 4, OLMo 3) too.
    name: 'one-call-markup-unicode',
    user: 'Copy the file, in the background.',
    content: 'Copying it.',
    reasoning: 'One command is enough.',
    calls: [
      {
        toolName: 'run',
        arguments: {
          command: 'test 1 -lt 2 && cp a.txt b.txt </function_calls> ) ] é 日本語 🎉',
          timeout: 0,
          background: true,
        },
      },
    ],
  },
];

/** The conversations that make one call (some templates write one call a turn). */
const ONE_CALL = ['closing-tags-in-code', 'one-call-markup-unicode'];

/**
 * A template, the dialect its model writes, and where in what it renders the last assistant
 * turn starts (the last `turn`, or the first after the last `after`) and ends (null: at the
 * end of the rendering). `label` names the fixtures' folder; `conversations`, when given, are
 * the only ones its template can write as they are.
 */
const TEMPLATES = [
  {
    label: 'qwen3-coder',
    dialect: 'qwen3-coder',
    file: 'qwen3-coder.jinja',
    turn: '<|im_start|>assistant',
    end: '<|im_end|>',
  },
  {
    // Step-3.5 / 3.7-Flash (StepFun) write Qwen3-Coder's form: the qwen3-coder dialect reads it.
    label: 'stepfun-3.7-flash',
    dialect: 'qwen3-coder',
    file: 'stepfun-3.7-flash.jinja',
    turn: '<|im_start|>assistant\n',
    end: '<|im_end|>',
  },
  {
    label: 'hermes',
    dialect: 'hermes',
    file: 'qwen3-hermes.jinja',
    turn: '<|im_start|>assistant\n',
    end: '<|im_end|>',
  },
  {
    label: 'minimax-m2',
    dialect: 'minimax-m2',
    file: 'minimax-m2.jinja',
    turn: ']~b]ai\n',
    end: '[e~[',
  },
  {
    label: 'seed-oss',
    dialect: 'seed-oss',
    file: 'seed-oss.jinja',
    turn: '<seed:bos>assistant',
    end: '<seed:eos>',
    // Its template writes `arg_value | string`: Python's str() of a non-string, which
    // @huggingface/jinja does not do for objects. Given here as Python would write it.
    pythonValues: true,
  },
  {
    label: 'deepseek-v3.1',
    dialect: 'deepseek',
    file: 'deepseek-v3.1.jinja',
    turn: '<｜Assistant｜>',
    end: '<｜end▁of▁sentence｜>',
    // Its template concatenates `arguments`: they come as a JSON string, as OpenAI sends them.
    jsonArguments: true,
  },
  {
    label: 'deepseek-v3.2',
    dialect: 'deepseek-dsml',
    file: 'deepseek-v3.2.jinja',
    turn: '<｜Assistant｜>',
    end: '<｜end▁of▁sentence｜>',
  },
  {
    label: 'mistral-small-3.1',
    dialect: 'mistral',
    file: 'mistral-small-3.1.jinja',
    turn: '[/INST]',
    end: '</s>',
  },
  {
    label: 'mistral-small-3.2',
    dialect: 'mistral',
    file: 'mistral-small-3.2.jinja',
    turn: '[/INST]',
    end: '</s>',
    nineCharIds: true,
  },
  {
    label: 'kimi-k2-thinking',
    dialect: 'kimi-k2',
    file: 'kimi-k2-thinking.jinja',
    turn: '<|im_assistant|>assistant<|im_middle|>',
    end: '<|im_end|>',
  },
  {
    // No chat_template.jinja ships with Kimi K3 (its checkpoint renders with encoding_k3.py);
    // llama.cpp's models/templates/Kimi-K3.jinja writes the same XTML.
    label: 'kimi-k3',
    dialect: 'kimi-k3',
    file: 'kimi-k3.jinja',
    turn: '<|open|>message role="assistant"<|sep|>',
    end: '<|close|>message<|sep|>',
  },
  {
    label: 'lfm2',
    dialect: 'lfm2',
    file: 'lfm2.jinja',
    turn: '<|im_start|>assistant\n',
    end: '<|im_end|>',
  },
  {
    label: 'nemotron-nano-v2',
    dialect: 'nemotron',
    file: 'nemotron-nano-v2.jinja',
    turn: '<SPECIAL_11>Assistant\n',
    end: '\n<SPECIAL_12>',
  },
  {
    label: 'command-r7b',
    dialect: 'command-r7b',
    file: 'command-r7b.jinja',
    turn: '<|CHATBOT_TOKEN|>',
    end: '<|END_OF_TURN_TOKEN|>',
  },
  { label: 'glm-4.5', dialect: 'glm', file: 'glm-4.5.jinja', turn: '<|assistant|>', end: null },
  { label: 'glm-4.6', dialect: 'glm', file: 'glm-4.6.jinja', turn: '<|assistant|>', end: null },
  {
    label: 'gpt-oss',
    dialect: 'gpt-oss',
    file: 'gpt-oss.jinja',
    // The model's turn is every message after the user's: analysis, then the call.
    after: '<|start|>user',
    turn: '<|start|>assistant',
    end: null,
    // One call a message, and reasoning in `thinking` (its template refuses it with content).
    conversations: ONE_CALL,
    thinkingField: true,
  },
  {
    label: 'gemma4',
    dialect: 'gemma4',
    file: 'gemma4.jinja',
    turn: '<|turn>model\n',
    end: '<turn|>',
  },
  {
    label: 'llama-3.3',
    dialect: 'llama3-json',
    file: 'llama-3.3.jinja',
    turn: '<|start_header_id|>assistant<|end_header_id|>\n\n',
    end: '<|eot_id|>',
    // "This model only supports single tool-calls at once!"
    conversations: ONE_CALL,
  },
  {
    label: 'llama4-pythonic',
    dialect: 'llama4',
    file: 'llama4-pythonic.jinja',
    turn: '<|header_start|>assistant<|header_end|>\n\n',
    end: '<|eot|>',
    // It writes `name="value"` as Python's `"%s" % value`, quotes and newlines unescaped.
    conversations: ['one-call-markup-unicode'],
    pythonValues: true,
  },
  {
    label: 'olmo3',
    dialect: 'olmo3',
    file: 'olmo3.jinja',
    turn: '<|im_start|>assistant\n',
    end: '<|im_end|>',
    // It writes strings in single quotes, unescaped: the test file's `model's` would end one.
    conversations: [
      'numbers-booleans-nested-json',
      'empty-newlines-unicode',
      'one-call-markup-unicode',
    ],
  },
  {
    label: 'functionary-v3.1',
    dialect: 'functionary',
    file: 'functionary-v3.1.jinja',
    turn: '<|start_header_id|>assistant<|end_header_id|>\n\n',
    end: '<|eom_id|>',
    jsonArguments: true,
  },
  {
    label: 'functionary-v3.2',
    dialect: 'functionary',
    file: 'functionary-v3.2.jinja',
    turn: '<|start_header_id|>assistant<|end_header_id|>\n\n',
    end: '<|eot_id|>',
    jsonArguments: true,
  },
  {
    label: 'firefunction-v2',
    dialect: 'functools',
    file: 'firefunction-v2.jinja',
    turn: '<|start_header_id|>assistant<|end_header_id|>\n\n',
    end: '<|eot_id|>',
    // It concatenates `arguments` (a JSON string, OpenAI's shape) and writes the tools and the
    // date from variables of its own.
    jsonArguments: true,
    context: { functions: JSON.stringify(TOOLS), datetime: '2025-01-01' },
  },
  {
    label: 'xlam-llama',
    dialect: 'xlam',
    file: 'xlam-llama.jinja',
    // A turn that calls is the list alone: its template drops the message's text.
    turn: '<|start_header_id|>assistant<|end_header_id|>\n\n',
    end: '<|eot_id|>',
  },
  {
    label: 'apertus',
    dialect: 'apertus',
    file: 'apertus.jinja',
    // The last assistant turn is not closed: nothing follows it.
    turn: '<|assistant_start|>',
    end: null,
    jsonArguments: true,
    // It reads `tool.name` and `tool.parameters`: the functions themselves, not OpenAI's
    // `{type, function}` wrappers (llama.cpp hands it them so).
    plainTools: true,
  },
  {
    label: 'gigachat3',
    dialect: 'gigachat',
    file: 'gigachat3.jinja',
    turn: 'assistant<|role_sep|>\n',
    // The `function call` turn's own close, which servers strip as a stop token.
    end: '<|message_sep|>',
    // One call a reply: it writes the first of `tool_calls` only.
    conversations: ONE_CALL,
  },
  {
    label: 'internlm2',
    dialect: 'internlm',
    file: 'internlm2.jinja',
    turn: '<|im_start|>assistant\n',
    end: '<|im_end|>',
    // It concatenates `arguments | string`: OpenAI's JSON string, written as it is.
    jsonArguments: true,
  },
  {
    // Tencent Hunyuan-A13B writes Jamba's form: read by the jamba dialect.
    label: 'hunyuan-a13b',
    dialect: 'jamba',
    file: 'hunyuan-a13b.jinja',
    // The assistant's turn follows the user's <|extra_0|> and ends with <|eos|>.
    turn: '<|extra_0|>',
    end: '<|eos|>',
  },
  {
    label: 'minicpm3',
    dialect: 'minicpm3',
    file: 'minicpm3.jinja',
    turn: '<|im_start|>assistant\n',
    end: '<|im_end|>',
    // Its template writes the message's `thought` (not `reasoning_content`) before the calls.
    thoughtField: true,
  },
  {
    label: 'minimax-m1',
    dialect: 'minimax-m1',
    file: 'minimax-m1.jinja',
    turn: '<beginning_of_sentence>ai name=MiniMax AI\n',
    end: '<end_of_sentence>',
  },
  {
    label: 'granite-20b-fc',
    dialect: 'granite-20b-fc',
    file: 'granite-20b-fc.jinja',
    // It drops the text of a turn that calls: the turn is its calls, one a line.
    turn: '\nASSISTANT:',
    end: '<|endoftext|>',
    // It writes its own system prompt and raises on a system message.
    noSystem: true,
  },
  {
    label: 'qwen2.5-coder',
    dialect: 'qwen25-coder',
    file: 'qwen2.5-coder.jinja',
    turn: '<|im_start|>assistant\n',
    end: '<|im_end|>',
  },
] as const;

/** Python's `str()` of a value, as Jinja's `| string` writes it in Python. */
function pythonStr(value: Json, nested = false): string {
  if (typeof value === 'string') return nested ? `'${value.replaceAll("'", "\\'")}'` : value;
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (value === null) return 'None';
  if (typeof value === 'number') return String(value);
  if (Array.isArray(value)) return `[${value.map((v) => pythonStr(v, true)).join(', ')}]`;
  return `{${Object.entries(value)
    .map(([k, v]) => `${pythonStr(k, true)}: ${pythonStr(v, true)}`)
    .join(', ')}}`;
}

/** Every argument as its Python `str()`. */
function pythonStrings(args: ExpectedCall['arguments']): ExpectedCall['arguments'] {
  return Object.fromEntries(Object.entries(args).map(([k, v]) => [k, pythonStr(v)]));
}

export interface Rendered {
  label: string;
  dialect: (typeof TEMPLATES)[number]['dialect'];
  name: string;
  /** The assistant turn as the model writes it. */
  text: string;
  calls: ExpectedCall[];
  reasoning: string;
}

export function renderAll(): Rendered[] {
  return TEMPLATES.flatMap((t) => {
    const { label, dialect, file, turn, end } = t;
    const writable = CONVERSATIONS.filter(
      (c) => !('conversations' in t) || (t.conversations as readonly string[]).includes(c.name),
    );
    const asWritten =
      'pythonValues' in t
        ? pythonStrings
        : 'jsonArguments' in t
          ? (args: ExpectedCall['arguments']) => JSON.stringify(args)
          : (args: ExpectedCall['arguments']) => args;
    const template = new Template(readFileSync(join(ROOT, 'templates', file), 'utf8'));
    return writable.map((c) => {
      const prompt = template.render({
        messages: [
          ...('noSystem' in t ? [] : [{ role: 'system', content: 'You are a coding agent.' }]),
          { role: 'user', content: c.user },
          {
            role: 'assistant',
            ...('thinkingField' in t
              ? { content: '', thinking: c.reasoning }
              : 'thoughtField' in t
                ? { content: c.content, thought: c.reasoning }
                : { content: c.content, reasoning_content: c.reasoning }),
            tool_calls: c.calls.map((call, i) => ({
              // Kimi's convention (its template writes the id where the name goes); Mistral
              // Small 3.2's wants 9 alphanumeric characters.
              id: 'nineCharIds' in t ? `callid00${i}` : `functions.${call.toolName}:${i}`,
              type: 'function',
              function: { name: call.toolName, arguments: asWritten(call.arguments) },
            })),
          },
        ],
        tools:
          'plainTools' in t ? TOOLS : TOOLS.map((tool) => ({ type: 'function', function: tool })),
        add_generation_prompt: false,
        bos_token: '<s>',
        eos_token: '</s>',
        ...('context' in t && t.context),
      });
      // The last turn that ends: Command R7B's template always opens one more at the end.
      const to = end === null ? prompt.length : prompt.lastIndexOf(end);
      const from =
        'after' in t
          ? prompt.indexOf(turn, prompt.lastIndexOf(t.after)) + turn.length
          : prompt.lastIndexOf(turn, to) + turn.length;
      const text = prompt.slice(from, to);
      return { label, dialect, name: c.name, text, calls: c.calls, reasoning: c.reasoning };
    });
  });
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const out = join(ROOT, 'rendered');
  rmSync(out, { recursive: true, force: true });
  for (const r of renderAll()) {
    mkdirSync(join(out, r.label), { recursive: true });
    writeFileSync(join(out, r.label, `${r.name}.txt`), r.text);
    writeFileSync(
      join(out, r.label, `${r.name}.calls.json`),
      `${JSON.stringify({ calls: r.calls, reasoning: r.reasoning }, null, 2)}\n`,
    );
  }
  console.log(`wrote ${renderAll().length} renderings to ${out}`);
}
