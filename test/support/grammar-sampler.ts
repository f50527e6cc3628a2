// A real llama.cpp sampler for the grammar tests: node-llama-cpp's CPU build loads the tiny
// random-weight model of tiny-gguf.ts and samples under a GBNF grammar, exploring it the way a
// model would. llama.cpp's lazy grammars (free text until a trigger, then the grammar) are
// emulated: node-llama-cpp has no triggers, so the text is sampled freely until the trigger
// matches as llama.cpp matches it; the text from the match on is fed to the grammar as written
// and the model goes on under the grammar.
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
 * Where llama.cpp's lazy grammar begins in `text`, or -1 while no trigger matches, as the
 * llama.cpp node-llama-cpp bundles does it (`llama_grammar_trigger_pattern::find`): each word
 * (escaped) and each pattern is searched on its own, in order, in the whole text so far; a
 * full pattern (anchored) must match all of it. The grammar takes the text from the match's
 * first capture group that holds text, else from the match's start.
 */
export function triggerStart(text: string, triggers: readonly Trigger[]): number {
  for (const trigger of triggers) {
    let source: string;
    if (trigger.type === 1) source = trigger.value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (trigger.type === 2) source = trigger.value;
    else if (trigger.type === 3) source = `^(?:${trigger.value})$`;
    else throw new Error(`trigger type ${trigger.type} is not emulated`);
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

/** The part of node-llama-cpp's native bindings that feeds a token to a grammar state. */
interface AddonBindings {
  AddonSampler: { acceptGrammarEvaluationStateToken(state: unknown, token: Token): void };
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

  type GrammarState = InstanceType<typeof LlamaGrammarEvaluationState>;
  async function grammarState(grammar: string): Promise<GrammarState> {
    let compiled = grammars.get(grammar);
    if (compiled === undefined) {
      compiled = await llama.createGrammar({ grammar });
      grammars.set(grammar, compiled);
    }
    return new LlamaGrammarEvaluationState({ model, grammar: compiled });
  }

  /**
   * Feeds text the model already wrote to a grammar, as llama.cpp does with a lazy grammar's
   * trigger text. node-llama-cpp has no public call for it: this is the call its own
   * evaluator makes for each sampled token (pinned by package-lock.json); a text the grammar
   * rejects throws, as llama.cpp's server fails the request.
   */
  const bindings = (llama as unknown as { _bindings: AddonBindings })._bindings;
  function acceptText(state: GrammarState, written: string): void {
    const inner = (state as unknown as { _state: unknown })._state;
    const tokens = model.tokenize(written, true);
    for (const token of tokens)
      try {
        bindings.AddonSampler.acceptGrammarEvaluationStateToken(inner, token);
      } catch (error) {
        throw new Error(
          `the grammar rejects its trigger text ${JSON.stringify(written)} (tokens ${JSON.stringify(tokens.map((t) => model.detokenize([t], true)))}): ${String(error)}`,
        );
      }
  }

  async function generate(
    input: Token[],
    request: SampleRequest,
    state: GrammarState | undefined,
    stop: (tokens: Token[]) => boolean,
  ): Promise<{ tokens: Token[]; ended: boolean }> {
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
        const state = await grammarState(request.grammar);
        const { tokens, ended } = await generate(prompt, request, state, () => false);
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
      // The text from the trigger on was written before the grammar engaged: it goes through
      // the grammar as written, and the model goes on under the grammar.
      const state = await grammarState(request.grammar);
      acceptText(state, freeText.slice(from));
      const rest = await generate(
        [...prompt, ...free.tokens],
        { ...request, maxTokens: Math.max(1, request.maxTokens - free.tokens.length) },
        state,
        () => false,
      );
      return {
        text: freeText + text(rest.tokens),
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
