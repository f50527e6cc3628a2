// Grammars in each model family's own call format, proven as the `<tool>` grammars are
// (grammar-sampler.test.ts): the tiny model, with the family's special tokens in its
// vocabulary, samples under each family's grammar (calls only, and lazy from the family's
// opening), and every sample is read in that dialect by `parse` and `createParser` (random
// chunkings) and dispatched through a toolbox. TAGCALL_SAMPLES=N samples N per family, mode
// and schema set (default 3). See docs/grammars.md, "In each family's own format".
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildDialectGrammar,
  DIALECTS,
  dialectOpenings,
  dialectTriggers,
  type Grammar,
  type GrammarDialect,
  GrammarError,
  printGbnf,
  type ToolLike,
} from './support/all.js';
import { dialectVocabulary } from './support/dialect-vocabulary.js';
import {
  createGrammarSampler,
  type GrammarSampler,
  samplerInstalled,
} from './support/grammar-sampler.js';
import { checkSample, plainFreeText } from './support/sampler-check.js';
import { SCHEMA_SETS, type SchemaTool } from './support/sampler-schemas.js';

const SAMPLES = Number(process.env.TAGCALL_SAMPLES ?? 3);

const listed = (tools: readonly SchemaTool[]): ToolLike[] =>
  tools.map((t) => ({ serverName: 'local', name: t.name, inputSchema: t.inputSchema }));

/** The grammar for a set, or the refusal's message when the family cannot write it. */
function grammarFor(
  dialect: GrammarDialect,
  tools: readonly SchemaTool[],
  scope: 'reply' | 'trigger',
): Grammar | string {
  try {
    return buildDialectGrammar(dialect, listed(tools), { allowText: false, scope });
  } catch (error) {
    if (error instanceof GrammarError) return error.message;
    throw error;
  }
}

const FAMILIES = DIALECTS.filter((d): d is GrammarDialect => d !== 'tagcall');

describe.skipIf(!samplerInstalled)('family grammars proven by a llama.cpp sampler', () => {
  const samplers: GrammarSampler[] = [];
  afterAll(async () => {
    for (const s of samplers) await s.dispose();
  });

  for (const dialect of FAMILIES)
    it(`${dialect}: calls only and lazy, every schema set`, async () => {
      const sets = Object.entries(SCHEMA_SETS).map(([name, tools]) => ({
        name,
        tools,
        whole: grammarFor(dialect, tools, 'reply'),
        lazy: grammarFor(dialect, tools, 'trigger'),
        triggers: dialectTriggers(dialect, listed(tools)),
        openings: dialectOpenings(dialect, listed(tools)),
      }));
      const grammars = sets.flatMap((s) =>
        [s.whole, s.lazy].filter((g): g is Grammar => typeof g !== 'string'),
      );
      const sampler = await createGrammarSampler(
        dialectVocabulary(
          grammars,
          sets.flatMap((s) => s.openings),
        ),
        26,
      );
      samplers.push(sampler);
      const failures: string[] = [];
      let checked = 0;
      let calls = 0;
      let notPlain = 0;
      for (const set of sets) {
        if (typeof set.whole === 'string') {
          // Refused, never silently narrowed: the message names the property.
          expect(set.whole).toMatch(/cannot write the required property/);
          continue;
        }
        for (const [mode, grammar] of [
          ['calls only', set.whole],
          ['lazy', set.lazy],
        ] as const) {
          if (typeof grammar === 'string') continue;
          for (let i = 0; i < SAMPLES; i++) {
            const sample = await sampler.sample({
              grammar: printGbnf(grammar),
              triggers: mode === 'lazy' ? set.triggers : undefined,
              prompt: `Reply ${i}:\n`,
              seed: i,
              maxTokens: mode === 'lazy' ? 600 : 300,
            });
            if (!sample.ended || sample.grammarFrom === -1) continue;
            if (!plainFreeText(sample.text.slice(0, sample.grammarFrom), dialect, set.tools)) {
              notPlain++;
              continue;
            }
            const { problems, expected } = await checkSample(
              grammar,
              sample.text,
              sample.grammarFrom,
              { tools: set.tools, dialect, chunkings: 4, seed: i },
            );
            checked++;
            calls += expected.length;
            if (problems.length > 0)
              failures.push(
                `${set.name}, ${mode}: ${JSON.stringify(sample.text)}\n  ${problems.join('\n  ')}`,
              );
          }
        }
      }
      console.log(dialect, 'checked', checked, 'calls', calls, 'free text not plain', notPlain);
      expect(failures).toEqual([]);
      expect(calls).toBeGreaterThanOrEqual(SAMPLES);
    });
});
