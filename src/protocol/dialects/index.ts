import { type BlockReader, byFirstCharacter, MAX_LEADING_BLANKS, skipBlanks } from '../block.js';
import type { Dialect } from '../dialect-names.js';
import {
  ANTHROPIC_WRITTEN,
  anthropicXml,
  DSML_WRITTEN,
  deepseekDsml,
  deepseekDsmlV4,
  MINIMAX_WRITTEN,
  minimaxM2,
  STEP3_WRITTEN,
  step3,
} from './anthropic-xml.js';
import { APERTUS_WRITTEN, apertus } from './apertus.js';
import { CLINE_WRITTEN, clineReader, clineSelfClosingReader } from './cline.js';
import { DEEPSEEK_WRITTEN, deepseek } from './deepseek.js';
import {
  FUNCTIONARY_WRITTEN,
  functionaryFirstCall,
  functionaryRecipient,
  functionaryTag,
} from './functionary.js';
import { FUNCTOOLS_WRITTEN, functools } from './functools.js';
import { GEMMA4_WRITTEN, gemma4 } from './gemma.js';
import { GIGACHAT_WRITTEN, gigachat3, gigachat31 } from './gigachat.js';
import { GIGACHAT35_WRITTEN, gigachat35 } from './gigachat35.js';
import { GLM_WRITTEN, glm } from './glm.js';
import { GPT_OSS_WRITTEN, harmonyChannel, harmonyHeaderTail, harmonyStart } from './harmony.js';
import {
  COMMAND_R7B_WRITTEN,
  commandR7b,
  GRANITE_WRITTEN,
  granite,
  granite31,
  HERMES_WRITTEN,
  hermes,
  hermesBare,
  hermesFunctionName,
  hermesFunctionNameAuto,
  hermesFunctionTag,
  hermesStream,
  hermesWrapped,
  hermesWrappedAuto,
  JAMBA_WRITTEN,
  jamba,
  NEMOTRON_WRITTEN,
  nemotron,
} from './hermes.js';
import { INTERNLM_WRITTEN, internlm } from './internlm.js';
import { KIMI_K2_WRITTEN, kimiK2 } from './kimi-k2.js';
import { LLAMA3_WRITTEN, llama3BareJson, llama3PythonTag } from './llama3.js';
import { LONGCAT_WRITTEN, longcat, longcatAuto } from './longcat.js';
import { MISTRAL_WRITTEN, mistral } from './mistral.js';
import {
  LFM2_WRITTEN,
  LLAMA4_WRITTEN,
  lfm2,
  lfm2Stream,
  llama4,
  MINICPM3_WRITTEN,
  minicpm3,
  minicpm3Stream,
  OLMO3_WRITTEN,
  olmo3,
  olmo3Stream,
} from './python-calls.js';
import { QWEN3_CODER_WRITTEN, qwen3Coder, qwen3CoderBare } from './qwen3-coder.js';
import { SEED_OSS_WRITTEN, seedOss } from './seed-oss.js';
import { TAGCALL_WRITTEN, tagcall } from './tagcall.js';
import type { WrittenForm } from './written.js';
import { XLAM_WRITTEN, xlam } from './xlam.js';

export { TAGCALL_TAGS } from './tagcall.js';
export type { WrittenArguments, WrittenElements, WrittenForm } from './written.js';
export { isElementName } from './written.js';

/**
 * What each dialect writes (one row in its family's module, next to its parse form): the
 * renderer (`renderCallIn`) and the grammar builder (src/grammar) read it.
 */
export const WRITTEN_FORMS: Readonly<Record<Dialect, WrittenForm>> = {
  tagcall: TAGCALL_WRITTEN,
  'anthropic-xml': ANTHROPIC_WRITTEN,
  'minimax-m2': MINIMAX_WRITTEN,
  'qwen3-coder': QWEN3_CODER_WRITTEN,
  'seed-oss': SEED_OSS_WRITTEN,
  glm: GLM_WRITTEN,
  deepseek: DEEPSEEK_WRITTEN,
  'deepseek-dsml': DSML_WRITTEN,
  step3: STEP3_WRITTEN,
  'kimi-k2': KIMI_K2_WRITTEN,
  hermes: HERMES_WRITTEN,
  nemotron: NEMOTRON_WRITTEN,
  'command-r7b': COMMAND_R7B_WRITTEN,
  mistral: MISTRAL_WRITTEN,
  lfm2: LFM2_WRITTEN,
  minicpm3: MINICPM3_WRITTEN,
  jamba: JAMBA_WRITTEN,
  granite: GRANITE_WRITTEN,
  'llama3-json': LLAMA3_WRITTEN,
  olmo3: OLMO3_WRITTEN,
  'gpt-oss': GPT_OSS_WRITTEN,
  gemma4: GEMMA4_WRITTEN,
  llama4: LLAMA4_WRITTEN,
  functionary: FUNCTIONARY_WRITTEN,
  functools: FUNCTOOLS_WRITTEN,
  apertus: APERTUS_WRITTEN,
  xlam: XLAM_WRITTEN,
  internlm: INTERNLM_WRITTEN,
  gigachat: GIGACHAT_WRITTEN,
  gigachat35: GIGACHAT35_WRITTEN,
  longcat: LONGCAT_WRITTEN,
  cline: CLINE_WRITTEN,
};

/**
 * Whether what follows `<tool_call>` can begin a call of one of its families: a tag, JSON, a
 * name (after blanks); null while only blanks have come. Anything else (`parse("<tool_call>")`
 * in a JSON string of another family's call) is text in 'auto'.
 */
function beginsToolCallBody(s: string, after: number, final: boolean): boolean | null {
  const first = skipBlanks(s, after, Math.min(s.length, after + MAX_LEADING_BLANKS));
  if (first >= s.length) return final ? true : null;
  return /[<{[A-Za-z_]/.test(s[first]);
}

/**
 * `<tool_call>` in 'auto': Qwen3-Coder when its body begins with a tag (`<function=`), Hermes'
 * JSON when it begins with `{` or `[` (a closing tag inside a JSON string then does not close
 * it), GLM's when it begins with a name.
 */
const toolCallAuto: BlockReader = {
  open: '<tool_call>',
  lineStart: beginsToolCallBody,
  midLine: beginsToolCallBody,
  stream: (sink, limits) =>
    byFirstCharacter(
      '<tool_call>',
      (c) => (c === '<' ? 0 : c === '{' || c === '[' || c === '' ? 1 : 2),
      [
        () => qwen3Coder.stream(sink, limits),
        () => hermesStream(sink, limits),
        () => glm.stream(sink, limits),
      ],
    ),
};

/**
 * `<function_calls>` in 'auto': Anthropic's when a tag (`<invoke`) follows it, OLMo 3's
 * Python calls when a name does.
 */
const functionCallsAuto: BlockReader = {
  open: '<function_calls>',
  anywhere: true,
  stream: (sink, limits) =>
    byFirstCharacter('<function_calls>', (c) => (/[A-Za-z_]/.test(c) ? 0 : 1), [
      () => olmo3Stream(sink, limits),
      () => anthropicXml.stream(sink, limits),
    ]),
};

/**
 * `<|tool_call_start|>` in 'auto': MiniCPM3's when its body begins with a fence (```python),
 * LFM2's otherwise (its Python or JSON list).
 */
const toolCallStartAuto: BlockReader = {
  open: '<|tool_call_start|>',
  anywhere: true,
  stream: (sink, limits) =>
    byFirstCharacter('<|tool_call_start|>', (c) => (c === '`' ? 1 : 0), [
      () => lfm2Stream(sink, limits),
      () => minicpm3Stream(sink, limits),
    ]),
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
 * The block readers for a dialect: `tagcall`'s `<tool>`, or another family's openings. `auto`
 * reads every dialect, each block by its own opening tag, but for Llama 3's
 * bare `{"name": …}` line and xLAM's bare `[{"name": …}]` list (replies hold JSON data: name
 * `llama3-json` or `xlam` to read them), functionary's and Llama 4's openings, and the word
 * `functools` (a word opening costs `auto` a third of its speed on prose); Cline's tags need
 * the tool names.
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
      return [tagcall];
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
    case 'deepseek-dsml':
      return [deepseekDsml, deepseekDsmlV4];
    case 'step3':
      return [step3];
    case 'kimi-k2':
      return [kimiK2];
    case 'hermes':
      return [hermes, ...hermesWrapped, hermesFunctionTag, hermesFunctionName, hermesBare];
    case 'nemotron':
      return [nemotron];
    case 'command-r7b':
      return [commandR7b];
    case 'mistral':
      return [mistral];
    case 'lfm2':
      return [lfm2];
    case 'minicpm3':
      return [minicpm3];
    case 'jamba':
      return [jamba];
    case 'granite':
      return [granite, granite31];
    case 'llama3-json':
      return [llama3PythonTag, llama3BareJson];
    case 'olmo3':
      return [olmo3];
    case 'gpt-oss':
      return [harmonyStart, harmonyChannel, harmonyHeaderTail];
    case 'gemma4':
      return [gemma4];
    case 'llama4':
      return [llama4];
    case 'functionary':
      return [functionaryTag, functionaryRecipient, functionaryFirstCall];
    case 'functools':
      return [functools];
    case 'apertus':
      return [apertus];
    case 'xlam':
      return [xlam];
    case 'internlm':
      return [internlm];
    case 'gigachat':
      return [gigachat3, gigachat31];
    case 'gigachat35':
      return [gigachat35];
    case 'longcat':
      return [longcat];
    case 'cline':
      return cline;
    case 'auto':
      return [
        tagcall,
        functionCallsAuto,
        minimaxM2,
        seedOss,
        deepseek,
        deepseekDsml,
        deepseekDsmlV4,
        step3,
        kimiK2,
        nemotron,
        commandR7b,
        mistral,
        toolCallStartAuto,
        jamba,
        granite,
        llama3PythonTag,
        harmonyStart,
        harmonyChannel,
        harmonyHeaderTail,
        gemma4,
        apertus,
        internlm,
        gigachat3,
        gigachat31,
        gigachat35,
        longcatAuto,
        toolCallAuto,
        qwen3CoderBare,
        ...hermesWrappedAuto,
        hermesFunctionNameAuto,
        ...cline,
      ];
  }
}
