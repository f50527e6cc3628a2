/**
 * The written forms of tool calls the parser reads besides the `<tool>` protocol, and how
 * each writes argument values: `text` in elements (a schema types them), `json`, `python`
 * literals, or Gemma's own syntax (strings between `<|"|>` tokens, bare keys).
 */
export const DIALECT_VALUES = {
  'anthropic-xml': 'text',
  'minimax-m2': 'text',
  'qwen3-coder': 'text',
  'seed-oss': 'text',
  glm: 'text',
  deepseek: 'json',
  'deepseek-dsml': 'text',
  step3: 'text',
  'kimi-k2': 'json',
  'kimi-k3': 'text',
  hermes: 'json',
  nemotron: 'json',
  'command-r7b': 'json',
  mistral: 'json',
  lfm2: 'python',
  minicpm3: 'python',
  jamba: 'json',
  granite: 'json',
  'llama3-json': 'json',
  olmo3: 'python',
  'gpt-oss': 'json',
  gemma4: 'gemma',
  llama4: 'python',
  functionary: 'json',
  functools: 'json',
  apertus: 'json',
  xlam: 'json',
  internlm: 'json',
  gigachat: 'json',
  gigachat35: 'text',
  longcat: 'json',
  'deepseek-v41': 'text',
  'minimax-m1': 'json',
  plamo3: 'json',
  'iquest-coder-v2': 'text',
  solar: 'text',
  'k2-horizon': 'text',
  'granite-20b-fc': 'json',
  functiongemma: 'gemma',
  'qwen25-coder': 'json',
  dots: 'text',
  cline: 'text',
  'generic-json': 'json',
} as const;

/** The written forms of tool calls the parser reads. `tagcall` is the `<tool>` protocol. */
export type Dialect = 'tagcall' | keyof typeof DIALECT_VALUES;
export const DIALECTS: readonly Dialect[] = [
  'tagcall',
  ...(Object.keys(DIALECT_VALUES) as Array<keyof typeof DIALECT_VALUES>),
];

/** The `<tool>` protocol's dialect: what tagcall teaches and reads unless told otherwise. */
export const DEFAULT_DIALECT = 'tagcall';

/** A model family's own form: every dialect but the `<tool>` protocol. */
export type FamilyDialect = Exclude<Dialect, typeof DEFAULT_DIALECT>;

/** Whether `dialect` is a model family's own form (not the `<tool>` protocol). */
export const isFamilyDialect = (dialect: Dialect): dialect is FamilyDialect =>
  dialect !== DEFAULT_DIALECT;

/** Whether `name` is a dialect the parser reads (or `auto`). */
export function isDialect(name: unknown): name is Dialect | 'auto' {
  return (
    name === 'auto' || (typeof name === 'string' && (DIALECTS as readonly string[]).includes(name))
  );
}
