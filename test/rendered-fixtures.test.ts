import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderAll, TOOLS } from '../bench/render-templates.js';
import { coerceArguments, type JsonSchema, type ParseOptions, parse } from './support/all.js';
import { cutsArbitrary, expectCallsSettle, feedChunks, splitAt } from './support/chunk.js';

const RENDERED = new URL('../fixtures/rendered/', import.meta.url);
const renderings = renderAll();
const schemas = new Map(TOOLS.map((t) => [t.name as string, t.parameters as JsonSchema]));
/**
 * Forms `auto` does not read, because prose writes them too (docs/dialects.md): Llama 3's bare
 * `{"name": …}` line, Llama 4's `[f(…)]` list, functionary's `>>>name` and `<function=name>{`,
 * xLAM's bare JSON list, FireFunction v2's `functools[…]` (a word: kept out for speed). There
 * `auto` must read text, never a call of another family.
 */
const OUTSIDE_AUTO = new Set([
  'firefunction-v2',
  'llama-3.3',
  'llama4-pythonic',
  'functionary-v3.1',
  'functionary-v3.2',
  'xlam-llama',
  // Qwen2.5-Coder's `<tools>`: where Hermes' and Qwen's own prompts list the tools.
  'qwen2.5-coder',
]);
/**
 * Forms whose opening `auto` gives to another family (docs/dialects.md): Granite 20B FC's
 * `<function_call>` is also the wrapper Hermes models slip into, closed by `</function_call>`,
 * and `auto` reads it so. Only `--dialect granite-20b-fc` is said to read these.
 */
const AUTO_READS_OTHERWISE = new Set(['granite-20b-fc']);
/**
 * xLAM's reply is one `[`…`]` line: in `auto` the `<tool>` protocol's rule reads it as
 * bracketed thinking when its `]` ends the line (else as text); nothing of it is a call.
 */
const asTextOrThinking = (result: ReturnType<typeof parse>, text: string) =>
  result.text === text || (result.text === '' && result.thinking.join('') === text.slice(1, -1));

describe('fixtures rendered from real chat templates', () => {
  it('are the checked-in files (npm run fixtures:render writes them)', () => {
    expect(renderings).toHaveLength(122);
    for (const r of renderings) {
      const file = new URL(`${r.label}/${r.name}`, RENDERED);
      expect(readFileSync(`${file.pathname}.txt`, 'utf8'), `${r.label}/${r.name}`).toBe(r.text);
      expect(JSON.parse(readFileSync(`${file.pathname}.calls.json`, 'utf8'))).toEqual({
        calls: r.calls,
        reasoning: r.reasoning,
      });
    }
  });

  for (const r of renderings) {
    describe(`${r.label}/${r.name}`, () => {
      if (OUTSIDE_AUTO.has(r.label)) {
        it('is text in auto, never a call of another family', () => {
          const result = parse(r.text, { dialect: 'auto' });
          expect(result.calls).toEqual([]);
          expect(result.errors).toEqual([]);
          if (r.dialect === 'xlam') expect(asTextOrThinking(result, r.text)).toBe(true);
          else expect(result.text).toBe(r.text);
        });
      }
      const dialects: Array<ParseOptions['dialect']> =
        OUTSIDE_AUTO.has(r.label) || AUTO_READS_OTHERWISE.has(r.label)
          ? [r.dialect]
          : [r.dialect, 'auto'];
      for (const dialect of dialects) {
        const options: ParseOptions = { dialect };
        it(`reads back the calls the conversation made (dialect ${dialect})`, () => {
          const result = parse(r.text, options);
          expect(result.errors).toEqual([]);
          expect(result.warnings).toEqual([]);
          expect(
            result.calls.map((call) => ({
              toolName: call.toolName,
              // As the middleware and the proxy do: the tool's schema types the values.
              arguments: coerceArguments(call.arguments, schemas.get(call.toolName) ?? {}),
            })),
          ).toEqual(r.calls);
          // Thinking, when the template wrote it, comes out as thinking.
          const thinking = result.thinking.map((t) => t.trim());
          if (r.text.includes(r.reasoning)) expect(thinking).toEqual([r.reasoning]);
        });
      }

      it('reads the same under 300 random chunkings', () => {
        const options: ParseOptions = { dialect: r.dialect };
        const whole = parse(r.text, options);
        fc.assert(
          fc.property(cutsArbitrary, (cuts) => {
            const { result, events } = feedChunks(splitAt(r.text, cuts), options);
            expect(result).toEqual(whole);
            // Every call told to start ends, as a call or an error (a preview's too).
            expectCallsSettle(events);
          }),
          { numRuns: 300 },
        );
      });
    });
  }
});
