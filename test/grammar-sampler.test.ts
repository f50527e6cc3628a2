// Everything a grammar lets a model write is read as the calls it holds: a real llama.cpp
// sampler (node-llama-cpp's CPU build, a tiny random-weight model written by
// support/tiny-gguf.ts) samples replies under each grammar mode for varied tool schemas, and
// every sample is read by `parse` and `createParser` (random chunkings) and dispatched through
// a toolbox (coercion and validation). TAGCALL_SAMPLES=N samples N per mode and schema set
// (default 8). See docs/grammars.md, "Proven by a sampler".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  buildToolGrammar,
  type Grammar,
  llamaCppGrammarFields,
  printGbnf,
  type ToolLike,
} from './support/all.js';
import {
  createGrammarSampler,
  type GrammarSampler,
  samplerInstalled,
  type Trigger,
} from './support/grammar-sampler.js';
import { checkSample } from './support/sampler-check.js';
import { SCHEMA_SETS, type SchemaTool, tagcallVocabulary } from './support/sampler-schemas.js';

const SAMPLES = Number(process.env.TAGCALL_SAMPLES ?? 8);

const listed = (tools: readonly SchemaTool[]): ToolLike[] =>
  tools.map((t) => ({ serverName: 'local', name: t.name, inputSchema: t.inputSchema }));

interface Mode {
  name: string;
  grammar: (tools: ToolLike[]) => Grammar;
  triggers?: (tools: ToolLike[]) => Trigger[];
}

const MODES: Mode[] = [
  { name: 'calls only', grammar: (t) => buildToolGrammar(t, { allowText: false }) },
  { name: 'free text with calls', grammar: (t) => buildToolGrammar(t) },
  {
    name: 'lazy trigger',
    grammar: (t) => buildToolGrammar(t, { scope: 'trigger' }),
    triggers: (t) => llamaCppGrammarFields(t).grammar_triggers,
  },
];

describe.skipIf(!samplerInstalled)('grammars proven by a llama.cpp sampler', () => {
  let sampler: GrammarSampler;
  beforeAll(async () => {
    sampler = await createGrammarSampler(tagcallVocabulary(), 27);
  });
  afterAll(async () => {
    await sampler?.dispose();
  });

  for (const mode of MODES)
    for (const [setName, tools] of Object.entries(SCHEMA_SETS))
      it(`<tool>: ${mode.name}, ${setName} schemas`, async () => {
        const grammar = mode.grammar(listed(tools));
        const failures: string[] = [];
        let calls = 0;
        let checked = 0;
        for (let i = 0; i < SAMPLES; i++) {
          const sample = await sampler.sample({
            grammar: printGbnf(grammar),
            triggers: mode.triggers?.(listed(tools)),
            prompt: `Reply ${i}:\n`,
            seed: i,
            maxTokens: mode.triggers === undefined ? 300 : 600,
          });
          if (!sample.ended || sample.grammarFrom === -1) continue;
          const { problems, expected } = await checkSample(
            grammar,
            sample.text,
            sample.grammarFrom,
            {
              tools,
              chunkings: 4,
              seed: i,
            },
          );
          calls += expected.length;
          checked++;
          if (problems.length > 0)
            failures.push(`${JSON.stringify(sample.text)}\n  ${problems.join('\n  ')}`);
        }
        console.log(mode.name, setName, 'checked', checked, 'calls', calls);
        expect(failures).toEqual([]);
        // The sampler explores: most replies end within the token budget, and hold calls.
        expect(checked).toBeGreaterThanOrEqual(SAMPLES / 2);
        expect(calls).toBeGreaterThanOrEqual(SAMPLES / 2);
      });
});
