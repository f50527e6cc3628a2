import type {
  AnswerMarkers,
  BlockReader,
  Confirmation,
  DialectMarkers,
  ThinkingTags,
} from '../block.js';
import type { Dialect } from '../dialect-names.js';
import type { Recoveries, RecoveryKind } from '../recoveries.js';
import { THINK_TAG } from '../thinking.js';
import {
  ANTHROPIC,
  ANTHROPIC_RECOVERIES,
  ANTHROPIC_THINKING,
  ANTHROPIC_WRITTEN,
  anthropicXml,
  DSML_RECOVERIES,
  DSML_WRITTEN,
  deepseekDsml,
  deepseekDsmlBare,
  deepseekDsmlV4,
  MINIMAX_RECOVERIES,
  MINIMAX_WRITTEN,
  minimaxM2,
  STEP3_RECOVERIES,
  STEP3_WRITTEN,
  step3,
} from './anthropic-xml.js';
import { APERTUS_THINKING, APERTUS_WRITTEN, apertus } from './apertus.js';
import { CLINE_RECOVERIES, CLINE_WRITTEN, clineReader, clineSelfClosingReader } from './cline.js';
import { DEEPSEEK_WRITTEN, deepseek, deepseekShortened } from './deepseek.js';
import {
  DEEPSEEK_V41_RECOVERIES,
  DEEPSEEK_V41_WRITTEN,
  deepseekV41,
  deepseekV41Bare,
} from './deepseek-v41.js';
import { DOTS_RECOVERIES, DOTS_WRITTEN, dots } from './dots.js';
import {
  FUNCTIONARY_ANSWER,
  FUNCTIONARY_WRITTEN,
  functionaryFirstCall,
  functionaryRecipient,
  functionaryTag,
} from './functionary.js';
import { FUNCTIONGEMMA_WRITTEN, functiongemma } from './functiongemma.js';
import { FUNCTOOLS_WRITTEN, functools } from './functools.js';
import { GEMMA4_THINKING, GEMMA4_WRITTEN, gemma4 } from './gemma.js';
import { GENERIC_JSON_WRITTEN, genericJson } from './generic-json.js';
import { GIGACHAT_WRITTEN, gigachat3, gigachat31 } from './gigachat.js';
import {
  GIGACHAT35_RECOVERIES,
  GIGACHAT35_WRITTEN,
  gigachat35,
  gigachat35Bare,
} from './gigachat35.js';
import { GLM_FORM, GLM_RECOVERIES, GLM_WRITTEN, glm } from './glm.js';
import { GRANITE_20B_FC_WRITTEN, granite20bFc } from './granite-20b-fc.js';
import {
  GPT_OSS_ANSWER,
  GPT_OSS_WRITTEN,
  harmonyChannel,
  harmonyHeaderTail,
  harmonyStart,
} from './harmony.js';
import {
  COMMAND_R7B_ANSWER,
  COMMAND_R7B_THINKING,
  COMMAND_R7B_WRITTEN,
  commandR7b,
  GRANITE_ANSWER,
  GRANITE_WRITTEN,
  granite,
  granite31,
  HERMES,
  HERMES_RECOVERIES,
  HERMES_WRITTEN,
  hermes,
  hermesBare,
  hermesFunctionName,
  hermesFunctionNameAuto,
  hermesFunctionTag,
  hermesWrapped,
  hermesWrappedAuto,
  JAMBA_WRITTEN,
  jamba,
  NEMOTRON_WRITTEN,
  nemotron,
} from './hermes.js';
import { INTERNLM_WRITTEN, internlm } from './internlm.js';
import {
  IQUEST_CODER_V2_RECOVERIES,
  IQUEST_CODER_V2_WRITTEN,
  iquestCoderV2,
} from './iquest-coder-v2.js';
import { K2_HORIZON_RECOVERIES, K2_HORIZON_WRITTEN, k2Horizon } from './k2-horizon.js';
import { KIMI_K2_RECOVERIES, KIMI_K2_WRITTEN, kimiK2, kimiK2Bare } from './kimi-k2.js';
import {
  KIMI_K3_ANSWER,
  KIMI_K3_RECOVERIES,
  KIMI_K3_THINKING,
  KIMI_K3_WRITTEN,
  kimiK3,
} from './kimi-k3.js';
import { LLAMA3_WRITTEN, llama3BareJson, llama3PythonTag } from './llama3.js';
import { LONGCAT_WRITTEN, longcat, longcatAuto } from './longcat.js';
import { MINIMAX_M1_WRITTEN, minimaxM1, toolCallsAuto } from './minimax-m1.js';
import { MAGISTRAL_THINKING, MISTRAL_WRITTEN, mistral } from './mistral.js';
import { PLAMO3_THINKING, PLAMO3_WRITTEN, plamo3 } from './plamo3.js';
import {
  LFM2,
  LFM2_WRITTEN,
  LLAMA4_WRITTEN,
  lfm2,
  llama4,
  llama4Tagged,
  MINICPM3,
  MINICPM3_RECOVERIES,
  MINICPM3_THINKING,
  MINICPM3_WRITTEN,
  minicpm3,
  OLMO3,
  OLMO3_WRITTEN,
  olmo3,
} from './python-calls.js';
import {
  QWEN3_CODER_FORM,
  QWEN3_CODER_RECOVERIES,
  QWEN3_CODER_WRITTEN,
  qwen3Coder,
  qwen3CoderBare,
} from './qwen3-coder.js';
import { QWEN25_CODER_WRITTEN, qwen25Coder } from './qwen25-coder.js';
import { BODY_RECOVERIES, THINKING_RECOVERIES } from './recoveries.js';
import { SEED_OSS_RECOVERIES, SEED_OSS_THINKING, SEED_OSS_WRITTEN, seedOss } from './seed-oss.js';
import { SOLAR_RECOVERIES, SOLAR_THINKING, SOLAR_WRITTEN, solar } from './solar.js';
import { TAGCALL_RECOVERIES, TAGCALL_TAGS, TAGCALL_WRITTEN, tagcall } from './tagcall.js';
import type { WrittenForm } from './written.js';
import { XLAM_WRITTEN, xlam } from './xlam.js';

export { THINKING_RECOVERIES } from './recoveries.js';
export { TAGCALL_TAGS } from './tagcall.js';
export type {
  NameRule,
  Slot,
  SlotName,
  Template,
  ValueType,
  WrittenArguments,
  WrittenCall,
  WrittenElements,
  WrittenForm,
} from './written.js';
export {
  admitsName,
  argumentOpen,
  callOf,
  fill,
  forbiddenIn,
  isElementName,
  modeOf,
  triggerOf,
} from './written.js';

/** A family's recoveries: the rows of every form of it (see src/protocol/recoveries.ts). */
type FamilyRecoveries = Partial<Recoveries<RecoveryKind>>;

/** A dialect's readers: the block readers of its openings (Cline's are made from the tool names). */
type Readers = readonly BlockReader[] | ((toolNames: readonly string[]) => BlockReader[]);

/**
 * Each dialect as the registry holds it: what it writes (its row, read by the renderer and
 * the grammar builder) and the readers of its openings. A family is one line here, besides
 * its name in dialect-names.ts (and its reader in `auto`'s list, if `auto` reads it).
 */
const DECLARED: Readonly<
  Record<
    Dialect,
    {
      written: WrittenForm;
      recoveries: FamilyRecoveries;
      readers: Readers;
      /** The special tokens around its answer, out of the text (see AnswerMarkers). */
      answer?: AnswerMarkers;
    }
  >
> = {
  tagcall: { written: TAGCALL_WRITTEN, recoveries: TAGCALL_RECOVERIES, readers: [tagcall] },
  'anthropic-xml': {
    written: ANTHROPIC_WRITTEN,
    recoveries: ANTHROPIC_RECOVERIES,
    readers: [anthropicXml],
  },
  'minimax-m2': { written: MINIMAX_WRITTEN, recoveries: MINIMAX_RECOVERIES, readers: [minimaxM2] },
  'qwen3-coder': {
    written: QWEN3_CODER_WRITTEN,
    recoveries: QWEN3_CODER_RECOVERIES,
    readers: [qwen3Coder, qwen3CoderBare],
  },
  'seed-oss': { written: SEED_OSS_WRITTEN, recoveries: SEED_OSS_RECOVERIES, readers: [seedOss] },
  glm: { written: GLM_WRITTEN, recoveries: GLM_RECOVERIES, readers: [glm] },
  deepseek: {
    written: DEEPSEEK_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [deepseek, deepseekShortened],
  },
  'deepseek-dsml': {
    written: DSML_WRITTEN,
    recoveries: DSML_RECOVERIES,
    readers: [deepseekDsml, deepseekDsmlV4, deepseekDsmlBare],
  },
  step3: { written: STEP3_WRITTEN, recoveries: STEP3_RECOVERIES, readers: [step3] },
  'kimi-k2': {
    written: KIMI_K2_WRITTEN,
    recoveries: KIMI_K2_RECOVERIES,
    readers: [kimiK2, kimiK2Bare],
  },
  'kimi-k3': {
    written: KIMI_K3_WRITTEN,
    recoveries: KIMI_K3_RECOVERIES,
    readers: [kimiK3],
    answer: KIMI_K3_ANSWER,
  },
  hermes: {
    written: HERMES_WRITTEN,
    recoveries: HERMES_RECOVERIES,
    readers: [hermes, ...hermesWrapped, hermesFunctionTag, hermesFunctionName, hermesBare],
  },
  nemotron: { written: NEMOTRON_WRITTEN, recoveries: BODY_RECOVERIES, readers: [nemotron] },
  'command-r7b': {
    written: COMMAND_R7B_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [commandR7b],
    answer: COMMAND_R7B_ANSWER,
  },
  mistral: { written: MISTRAL_WRITTEN, recoveries: BODY_RECOVERIES, readers: [mistral] },
  lfm2: { written: LFM2_WRITTEN, recoveries: BODY_RECOVERIES, readers: [lfm2] },
  minicpm3: { written: MINICPM3_WRITTEN, recoveries: MINICPM3_RECOVERIES, readers: [minicpm3] },
  jamba: { written: JAMBA_WRITTEN, recoveries: BODY_RECOVERIES, readers: [jamba] },
  granite: {
    written: GRANITE_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [granite, granite31],
    answer: GRANITE_ANSWER,
  },
  'llama3-json': {
    written: LLAMA3_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [llama3PythonTag, llama3BareJson],
  },
  olmo3: { written: OLMO3_WRITTEN, recoveries: BODY_RECOVERIES, readers: [olmo3] },
  'gpt-oss': {
    written: GPT_OSS_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [harmonyStart, harmonyChannel, harmonyHeaderTail],
    answer: GPT_OSS_ANSWER,
  },
  gemma4: { written: GEMMA4_WRITTEN, recoveries: BODY_RECOVERIES, readers: [gemma4] },
  llama4: { written: LLAMA4_WRITTEN, recoveries: BODY_RECOVERIES, readers: [llama4, llama4Tagged] },
  functionary: {
    written: FUNCTIONARY_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [functionaryTag, functionaryRecipient, functionaryFirstCall],
    answer: FUNCTIONARY_ANSWER,
  },
  functools: { written: FUNCTOOLS_WRITTEN, recoveries: BODY_RECOVERIES, readers: [functools] },
  apertus: { written: APERTUS_WRITTEN, recoveries: BODY_RECOVERIES, readers: [apertus] },
  xlam: { written: XLAM_WRITTEN, recoveries: BODY_RECOVERIES, readers: [xlam] },
  'generic-json': {
    written: GENERIC_JSON_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [genericJson],
  },
  internlm: { written: INTERNLM_WRITTEN, recoveries: BODY_RECOVERIES, readers: [internlm] },
  gigachat: {
    written: GIGACHAT_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [gigachat3, gigachat31],
  },
  gigachat35: {
    written: GIGACHAT35_WRITTEN,
    recoveries: GIGACHAT35_RECOVERIES,
    readers: [gigachat35, gigachat35Bare],
  },
  longcat: { written: LONGCAT_WRITTEN, recoveries: BODY_RECOVERIES, readers: [longcat] },
  'deepseek-v41': {
    written: DEEPSEEK_V41_WRITTEN,
    recoveries: DEEPSEEK_V41_RECOVERIES,
    readers: [deepseekV41, deepseekV41Bare],
  },
  'granite-20b-fc': {
    written: GRANITE_20B_FC_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [granite20bFc],
  },
  functiongemma: {
    written: FUNCTIONGEMMA_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [functiongemma],
  },
  'qwen25-coder': {
    written: QWEN25_CODER_WRITTEN,
    recoveries: BODY_RECOVERIES,
    readers: [qwen25Coder],
  },
  dots: { written: DOTS_WRITTEN, recoveries: DOTS_RECOVERIES, readers: [dots] },
  cline: { written: CLINE_WRITTEN, recoveries: CLINE_RECOVERIES, readers: clineReaders },
  'minimax-m1': { written: MINIMAX_M1_WRITTEN, recoveries: BODY_RECOVERIES, readers: [minimaxM1] },
  plamo3: { written: PLAMO3_WRITTEN, recoveries: BODY_RECOVERIES, readers: [plamo3] },
  'iquest-coder-v2': {
    written: IQUEST_CODER_V2_WRITTEN,
    recoveries: IQUEST_CODER_V2_RECOVERIES,
    readers: [iquestCoderV2],
  },
  solar: {
    written: SOLAR_WRITTEN,
    recoveries: SOLAR_RECOVERIES,
    readers: [solar],
  },
  'k2-horizon': {
    written: K2_HORIZON_WRITTEN,
    recoveries: K2_HORIZON_RECOVERIES,
    readers: [k2Horizon],
  },
};

/**
 * The thinking tags a line may open, in every dialect (a reply shows its family's thinking
 * whatever dialect reads its calls): the common `<think>`, then the families' own.
 */
export const THINK_TAGS: readonly ThinkingTags[] = [
  THINK_TAG,
  ANTHROPIC_THINKING,
  SEED_OSS_THINKING,
  COMMAND_R7B_THINKING,
  GEMMA4_THINKING,
  MAGISTRAL_THINKING,
  APERTUS_THINKING,
  MINICPM3_THINKING,
  KIMI_K3_THINKING,
  PLAMO3_THINKING,
  SOLAR_THINKING,
];

/**
 * The answer markers a dialect reads: its family's, and in `auto` every family's special
 * tokens (prose does not write them). Other dialects leave another family's as text.
 */
export function answerMarkers(dialect: Dialect | 'auto'): DialectMarkers {
  const declared =
    dialect === 'auto'
      ? Object.values(DECLARED).flatMap(({ answer }) =>
          answer?.specialTokens === true ? [answer] : [],
        )
      : [DECLARED[dialect].answer ?? { tokens: [], specialTokens: false }];
  return {
    anywhere: declared.flatMap((answer) => answer.tokens),
    inputStart: declared.flatMap((answer) =>
      answer.inputStart === undefined ? [] : [answer.inputStart],
    ),
  };
}

/**
 * Each dialect's recoveries, kind by kind: its family's rows, and thinking's (every dialect
 * reads every family's thinking tags). test/recoveries.test.ts holds the engine to them.
 */
export const DIALECT_RECOVERIES = Object.fromEntries(
  Object.entries(DECLARED).map(([dialect, { recoveries }]) => [
    dialect,
    { ...recoveries, ...THINKING_RECOVERIES },
  ]),
) as Readonly<Record<Dialect, FamilyRecoveries>>;

/** Each dialect's written form (`renderCallIn` and src/grammar read it). */
export const WRITTEN_FORMS = Object.fromEntries(
  Object.entries(DECLARED).map(([dialect, { written }]) => [dialect, written]),
) as Readonly<Record<Dialect, WrittenForm>>;

/**
 * What follows `<tool_call>` can begin a call of one of its families: a tag, JSON, a name
 * (after blanks; only blanks before the input's end count too). Anything else
 * (`parse("<tool_call>")` in a JSON string of another family's call) is text in 'auto'.
 */
const BEGINS_TOOL_CALL_BODY: Confirmation = { afterBlanks: /[<{[A-Za-z_]/, onlyBlanks: true };

/**
 * `<tool_call>` in 'auto': Qwen3-Coder when its body begins with a tag (`<function=`), Hermes'
 * JSON when it begins with `{` or `[` (a closing tag inside a JSON string then does not close
 * it), GLM's when it begins with a name.
 */
const toolCallAuto: BlockReader = {
  open: HERMES.open,
  lineStart: BEGINS_TOOL_CALL_BODY,
  midLine: BEGINS_TOOL_CALL_BODY,
  reads: {
    byFirstCharacter: [
      { first: /</, markup: QWEN3_CODER_FORM },
      // The input ending before a first character too.
      { first: /^[{[]?$/, body: HERMES },
      { markup: GLM_FORM },
    ],
  },
};

/**
 * `<function_calls>` in 'auto': Anthropic's when a tag (`<invoke`) follows it, OLMo 3's
 * Python calls when a name does.
 */
const functionCallsAuto: BlockReader = {
  open: OLMO3.open,
  anywhere: true,
  reads: { byFirstCharacter: [{ first: /[A-Za-z_]/, body: OLMO3 }, { markup: ANTHROPIC }] },
};

/**
 * `<|tool_call_start|>` in 'auto': MiniCPM3's when its body begins with a fence (```python),
 * LFM2's otherwise (its Python or JSON list).
 */
const toolCallStartAuto: BlockReader = {
  open: LFM2.open,
  anywhere: true,
  reads: { byFirstCharacter: [{ body: LFM2 }, { first: /`/, body: MINICPM3 }] },
};

/** The name of an opening tag `<name>`. */
const tagName = (open: string): string => open.slice(1, -1);

/** Tags other forms own: a tool of that name is not read as a Cline tag (`<think>` stays thinking). */
const RESERVED_TAGS = new Set([
  tagName(TAGCALL_TAGS.open),
  TAGCALL_TAGS.tool,
  TAGCALL_TAGS.server,
  TAGCALL_TAGS.container,
  tagName(THINK_TAG[0]),
  tagName(ANTHROPIC_THINKING[0]),
  tagName(HERMES.open),
  tagName(OLMO3.open),
]);

/** Cline's readers: a tag and a self-closing tag for each tool whose name can be a tag. */
function clineReaders(toolNames: readonly string[]): BlockReader[] {
  return toolNames
    .filter((name) => /^[A-Za-z_][\w.-]*$/.test(name) && !RESERVED_TAGS.has(name))
    .flatMap((name) => [clineReader(name), clineSelfClosingReader(name)]);
}

/**
 * The block readers for a dialect: `tagcall`'s `<tool>`, or another family's openings. `auto`
 * reads every dialect, each block by its own opening tag, but for Llama 3's
 * bare `{"name": …}` line and xLAM's bare `[{"name": …}]` list (replies hold JSON data: name
 * `llama3-json` or `xlam` to read them), functionary's and Llama 4's bare `[` openings, and the word
 * `functools` (a word opening costs `auto` a third of its speed on prose); Cline's tags need
 * the tool names.
 */
export function blockReaders(
  dialect: Dialect | 'auto',
  toolNames: readonly string[],
): BlockReader[] {
  if (dialect !== 'auto') {
    const { readers } = DECLARED[dialect];
    return typeof readers === 'function' ? readers(toolNames) : [...readers];
  }
  return [
    tagcall,
    functionCallsAuto,
    minimaxM2,
    seedOss,
    deepseek,
    deepseekShortened,
    deepseekDsml,
    deepseekDsmlV4,
    deepseekDsmlBare,
    deepseekV41,
    deepseekV41Bare,
    step3,
    kimiK2,
    kimiK2Bare,
    kimiK3,
    nemotron,
    commandR7b,
    mistral,
    toolCallStartAuto,
    toolCallsAuto,
    granite,
    llama3PythonTag,
    llama4Tagged,
    harmonyStart,
    harmonyChannel,
    harmonyHeaderTail,
    gemma4,
    functiongemma,
    dots,
    apertus,
    internlm,
    gigachat3,
    gigachat31,
    gigachat35,
    gigachat35Bare,
    longcatAuto,
    plamo3,
    iquestCoderV2,
    solar,
    k2Horizon,
    toolCallAuto,
    qwen3CoderBare,
    ...hermesWrappedAuto,
    hermesFunctionNameAuto,
    ...clineReaders(toolNames),
  ];
}
