// A real llama.cpp sampler for the grammar tests: node-llama-cpp's CPU build loads the tiny
// random-weight model of tiny-gguf.ts and samples under a GBNF grammar, exploring it the way a
// model would. llama.cpp's lazy grammars (free text until a trigger, then the grammar) are
// emulated: node-llama-cpp has no triggers, so the text is sampled freely until the trigger
// matches as llama.cpp matches it, then cut where llama.cpp's grammar would begin and sampled
// on under the grammar.
import { createRequire } from 'node:module';
import type { Token } from 'node-llama-cpp';
import { type TinyVocabulary, writeTinyGguf } from './tiny-gguf.js';

/** node-llama-cpp's Linux x64 CPU binary is the only one installed (package.json overrides). */
export const samplerInstalled = (() => {
  if (process.platform !== 'linux' || process.arch !== 'x64') return false;
  try {
    createRequire(import.meta.url).resolve('node-llama-cpp');
    return true;
  } catch {
    return false;
  }
})();

/** A llama.cpp grammar trigger: `type` is `common_grammar_trigger_type` (WORD 1, PATTERN 2, PATTERN_FULL 3). */
export interface Trigger {
  type: number;
  value: string;
}

/**
 * Where llama.cpp's lazy grammar begins in `text`, or -1 while no trigger matches: a word or
 * pattern is searched anywhere, a full pattern must match the whole text (anchored); the
 * grammar takes the text from the first capture group that matched something, else from the
 * match's start (llama_grammar_trigger_pattern::find).
 */
export function triggerStart(text: string, triggers: readonly Trigger[]): number {
  for (const trigger of triggers) {
    let source = trigger.value;
    if (trigger.type === 1) source = source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (trigger.type === 3)
      source = `${source.startsWith('^') ? '' : '^'}${source}${source.endsWith('$') ? '' : '$'}`;
    else if (trigger.type !== 2) throw new Error(`trigger type ${trigger.type} is not emulated`);
    const match = new RegExp(source, 'd').exec(text);
    if (match === null) continue;
    const groups = match.indices ?? [];
    for (let i = 1; i < groups.length; i++) {
      const span = groups[i];
      if (span !== undefined && span[1] > span[0]) return span[0];
    }
    return match.index;
  }
  return -1;
}

export interface SampleRequest {
  /** GBNF; with `triggers`, applied from the trigger on. */
  grammar: string;
  triggers?: readonly Trigger[];
  prompt: string;
  seed: number;
  maxTokens: number;
  temperature?: number;
  frequencyPenalty?: number;
}

export interface Sample {
  text: string;
  /** Where the grammar began (0 unless lazy; -1 when the trigger never matched). */
  grammarFrom: number;
  /** The model ended the reply (not cut at `maxTokens`). */
  ended: boolean;
  tokens: number;
}

/** Loads the tiny model for `vocabulary` and samples replies from it under grammars. */
export async function createGrammarSampler(vocabulary: TinyVocabulary, seed: number) {
  const { getLlama, LlamaGrammarEvaluationState } = await import('node-llama-cpp');
  const logs: string[] = [];
  const llama = await getLlama({
    gpu: false,
    build: 'never',
    maxThreads: 1,
    logger: (_level, message) => logs.push(message),
  });
  const model = await llama.loadModel({ modelPath: await writeTinyGguf(vocabulary, seed) });
  // One thread: ggml's two-thread pool spins and stalls on this two-core machine; with one
  // sequence the samples are deterministic.
  const context = await model.createContext({ contextSize: 2048, threads: 1, sequences: 1 });
  const sequence = context.getSequence();
  const grammars = new Map<string, Awaited<ReturnType<typeof llama.createGrammar>>>();
  const text = (tokens: Token[]) => model.detokenize(tokens, true);

  async function generate(
    input: Token[],
    request: SampleRequest,
    grammar: string | undefined,
    stop: (tokens: Token[]) => boolean,
  ): Promise<{ tokens: Token[]; ended: boolean }> {
    let state: InstanceType<typeof LlamaGrammarEvaluationState> | undefined;
    if (grammar !== undefined) {
      let compiled = grammars.get(grammar);
      if (compiled === undefined) {
        compiled = await llama.createGrammar({ grammar });
        grammars.set(grammar, compiled);
      }
      state = new LlamaGrammarEvaluationState({ model, grammar: compiled });
    }
    await sequence.clearHistory();
    const out: Token[] = [];
    for await (const token of sequence.evaluate(input, {
      temperature: request.temperature ?? 1,
      seed: request.seed,
      grammarEvaluationState: state,
      // A random model repeats a token once its state settles on it: a frequency penalty
      // over the last tokens breaks the loops, as servers' repeat penalties do.
      repeatPenalty: {
        punishTokens: () => out.slice(-32),
        penalty: 1.2,
        frequencyPenalty: request.frequencyPenalty ?? 0.4,
      },
    })) {
      if (model.isEogToken(token)) return { tokens: out, ended: true };
      out.push(token);
      if (out.length >= request.maxTokens || stop(out)) return { tokens: out, ended: false };
    }
    // The grammar allows nothing more: llama.cpp ends the reply there.
    return { tokens: out, ended: true };
  }

  return {
    model,
    /** One reply to `prompt` under the grammar (deterministic for a seed). */
    async sample(request: SampleRequest): Promise<Sample> {
      const prompt = [model.tokens.bos as Token, ...model.tokenize(request.prompt, false)];
      if (request.triggers === undefined) {
        const { tokens, ended } = await generate(prompt, request, request.grammar, () => false);
        return { text: text(tokens), grammarFrom: 0, ended, tokens: tokens.length };
      }
      const triggers = request.triggers;
      const free = await generate(
        prompt,
        request,
        undefined,
        (tokens) => triggerStart(text(tokens), triggers) !== -1,
      );
      const freeText = text(free.tokens);
      const from = triggerStart(freeText, triggers);
      if (from === -1)
        return { text: freeText, grammarFrom: -1, ended: free.ended, tokens: free.tokens.length };
      const before = freeText.slice(0, from);
      const rest = await generate(
        [...prompt, ...model.tokenize(before, false)],
        { ...request, maxTokens: Math.max(1, request.maxTokens - free.tokens.length) },
        request.grammar,
        () => false,
      );
      return {
        text: before + text(rest.tokens),
        grammarFrom: from,
        ended: rest.ended,
        tokens: free.tokens.length + rest.tokens.length,
      };
    },
    logs,
    async dispose() {
      await context.dispose();
      await model.dispose();
    },
  };
}

export type GrammarSampler = Awaited<ReturnType<typeof createGrammarSampler>>;
