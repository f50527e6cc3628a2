import { anthropicXml, minimaxM2 } from './anthropic-xml.js';
import { type BlockReader, BlockStatus, type BlockStream, skipBlanks } from './block.js';
import { clineReader, clineSelfClosingReader } from './cline.js';
import { deepseek } from './deepseek.js';
import { glm } from './glm.js';
import {
  commandR7b,
  granite,
  hermes,
  hermesStream,
  jamba,
  lfm2,
  llama3BareJson,
  llama3PythonTag,
  nemotron,
  olmo3,
  olmo3Stream,
} from './hermes.js';
import { kimiK2 } from './kimi-k2.js';
import { mistral } from './mistral.js';
import { qwen3Coder, qwen3CoderBare } from './qwen3-coder.js';
import { seedOss } from './seed-oss.js';

export type { BlockReader, BlockSink, BlockStream } from './block.js';
export { BlockStatus } from './block.js';

/** The written forms of tool calls the parser reads. `tagcall` is the `<tool>` protocol. */
export type Dialect =
  | 'tagcall'
  | 'anthropic-xml'
  | 'minimax-m2'
  | 'qwen3-coder'
  | 'seed-oss'
  | 'glm'
  | 'deepseek'
  | 'kimi-k2'
  | 'hermes'
  | 'nemotron'
  | 'command-r7b'
  | 'mistral'
  | 'lfm2'
  | 'jamba'
  | 'granite'
  | 'llama3-json'
  | 'olmo3'
  | 'cline';
export const DIALECTS: readonly Dialect[] = [
  'tagcall',
  'anthropic-xml',
  'minimax-m2',
  'qwen3-coder',
  'seed-oss',
  'glm',
  'deepseek',
  'kimi-k2',
  'hermes',
  'nemotron',
  'command-r7b',
  'mistral',
  'lfm2',
  'jamba',
  'granite',
  'llama3-json',
  'olmo3',
  'cline',
];

/** How many blanks after `<tool_call>` 'auto' looks through for the body's first character. */
const MAX_LEADING_BLANKS = 256;

/**
 * `<tool_call>` in 'auto': Qwen3-Coder when its body begins with a tag (`<function=`), Hermes'
 * JSON when it begins with `{` or `[` (a closing tag inside a JSON string then does not close
 * it), GLM's when it begins with a name.
 */
const toolCallAuto: BlockReader = {
  open: '<tool_call>',
  anywhere: true,
  stream(sink, limits) {
    let inner: BlockStream | null = null;
    return {
      run(s, from, offset, final) {
        if (inner === null) {
          const bodyStart = from + '<tool_call>'.length;
          const limit = bodyStart + MAX_LEADING_BLANKS;
          const first = skipBlanks(s, bodyStart, Math.min(s.length, limit));
          if (first >= s.length && !final) return from;
          const c = s[first];
          inner =
            c === '<'
              ? qwen3Coder.stream(sink, limits)
              : c === '{' || c === '[' || first >= s.length
                ? hermesStream(sink, limits, first < s.length)
                : glm.stream(sink, limits);
        }
        return inner.run(s, from, offset, final);
      },
      streamValue: (chunk) => inner?.streamValue(chunk) ?? false,
      get status() {
        return inner?.status ?? BlockStatus.Open;
      },
      stop(code, message, offset) {
        return inner?.stop(code, message, offset) ?? { code, message, offset };
      },
    };
  },
};

/**
 * `<function_calls>` in 'auto': Anthropic's when a tag (`<invoke`) follows it, OLMo 3's
 * Python calls when a name does.
 */
const functionCallsAuto: BlockReader = {
  open: '<function_calls>',
  anywhere: true,
  stream(sink, limits) {
    let inner: BlockStream | null = null;
    return {
      run(s, from, offset, final) {
        if (inner === null) {
          const bodyStart = from + '<function_calls>'.length;
          const limit = bodyStart + MAX_LEADING_BLANKS;
          const first = skipBlanks(s, bodyStart, Math.min(s.length, limit));
          if (first >= s.length && !final) return from;
          inner = /[A-Za-z_]/.test(s[first] ?? '')
            ? olmo3Stream(sink, limits)
            : anthropicXml.stream(sink, limits);
        }
        return inner.run(s, from, offset, final);
      },
      streamValue: (chunk) => inner?.streamValue(chunk) ?? false,
      get status() {
        return inner?.status ?? BlockStatus.Open;
      },
      stop(code, message, offset) {
        return inner?.stop(code, message, offset) ?? { code, message, offset };
      },
    };
  },
};

/** Tags other forms own: a tool of that name is not read as a Cline tag (`<think>` stays thinking). */
const RESERVED_TAGS = new Set([
  'tool',
  'think',
  'thinking',
  'tool_call',
  'function_calls',
  'tool_name',
  'server_name',
  'arguments',
]);

/**
 * The block readers for a dialect besides the `<tool>` protocol (which the parser reads
 * itself). `auto` reads every dialect, each block by its own opening tag, but for Llama 3's
 * bare `{"name": …}` line (replies hold JSON data: name `llama3-json` to read it); Cline's
 * tags need the tool names.
 */
export function blockReaders(
  dialect: Dialect | 'auto',
  toolNames: readonly string[],
): BlockReader[] {
  const cline = toolNames
    .filter((name) => /^[A-Za-z_][\w.-]*$/.test(name) && !RESERVED_TAGS.has(name))
    .flatMap((name) => [clineReader(name), clineSelfClosingReader(name)]);
  switch (dialect) {
    case 'tagcall':
      return [];
    case 'anthropic-xml':
      return [anthropicXml];
    case 'minimax-m2':
      return [minimaxM2];
    case 'qwen3-coder':
      return [qwen3Coder, qwen3CoderBare];
    case 'seed-oss':
      return [seedOss];
    case 'glm':
      return [glm];
    case 'deepseek':
      return [deepseek];
    case 'kimi-k2':
      return [kimiK2];
    case 'hermes':
      return [hermes];
    case 'nemotron':
      return [nemotron];
    case 'command-r7b':
      return [commandR7b];
    case 'mistral':
      return [mistral];
    case 'lfm2':
      return [lfm2];
    case 'jamba':
      return [jamba];
    case 'granite':
      return [granite];
    case 'llama3-json':
      return [llama3PythonTag, llama3BareJson];
    case 'olmo3':
      return [olmo3];
    case 'cline':
      return cline;
    case 'auto':
      return [
        functionCallsAuto,
        minimaxM2,
        seedOss,
        deepseek,
        kimiK2,
        nemotron,
        commandR7b,
        mistral,
        lfm2,
        jamba,
        granite,
        llama3PythonTag,
        toolCallAuto,
        qwen3CoderBare,
        ...cline,
      ];
  }
}
