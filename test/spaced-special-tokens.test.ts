// A server that decodes a slow tokenizer's output with `spaces_between_special_tokens` (vLLM's
// default, as transformers' `_decode` does) writes one blank between two special tokens that
// stand together: `<|action_start|> <|plugin|>`. A family's calls read the same with it. The
// special tokens are each family's own declaration (`WrittenForm.tokens`), not a list here.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { FirstCharacterChoice } from '../src/protocol/block.js';
import { blockReaders } from '../src/protocol/dialects/index.js';
import { spacedOpenings } from '../src/protocol/spaced-openings.js';
import {
  DIALECTS,
  type Dialect,
  type ParseResult,
  parse,
  renderCallIn,
  type ToolArguments,
  WRITTEN_FORMS,
} from './support/all.js';
import { cutsArbitrary, expectCallsSettle, feedChunks, splitAt } from './support/chunk.js';

/** `text` with one blank between each two of `tokens` that stand together in it. */
function spacedBetweenTokens(text: string, tokens: readonly string[]): string {
  const longestFirst = [...tokens].sort((a, b) => b.length - a.length);
  let out = '';
  let lastTokenEnd = -1;
  for (let i = 0; i < text.length; ) {
    const token = longestFirst.find((t) => text.startsWith(t, i));
    if (token === undefined) {
      out += text[i];
      i++;
      continue;
    }
    if (lastTokenEnd === i) out += ' ';
    out += token;
    i += token.length;
    lastTokenEnd = i;
  }
  return out;
}

type RenderableCall = Parameters<typeof renderCallIn>[1];

/**
 * `text` as a decoder with `spaces_between_special_tokens` writes it: each of `tokens` and each
 * run of other text between them joined with one blank.
 */
function decodedWithSpaces(text: string, tokens: readonly string[]): string {
  const longestFirst = [...tokens].sort((a, b) => b.length - a.length);
  const pieces: string[] = [];
  let run = '';
  for (let i = 0; i < text.length; ) {
    const token = longestFirst.find((t) => text.startsWith(t, i));
    if (token === undefined) {
      run += text[i];
      i++;
      continue;
    }
    if (run !== '') pieces.push(run);
    run = '';
    pieces.push(token);
    i += token.length;
  }
  if (run !== '') pieces.push(run);
  return pieces.join(' ');
}

/**
 * The families docs/dialects.md says read a blank beside ordinary text differently (a literal
 * of text and tokens, or a string's own blanks): the test holds the list to what they do.
 */
const DIFFERENT_BESIDE_TEXT: readonly Dialect[] = ['gigachat', 'step3', 'gemma4', 'functiongemma'];

/**
 * Calls of one reply as `dialect` writes them: its form's `open`, the calls with its `separator`
 * between two, its `close` (each call rendered alone, its own `open` and `close` taken off).
 */
function writtenCalls(dialect: Dialect, calls: readonly RenderableCall[]): string {
  const form = WRITTEN_FORMS[dialect];
  const lead = form.lead?.rendered ?? '';
  const inner = calls.slice(0, form.maxCalls ?? calls.length).map((call) =>
    renderCallIn(dialect, call)
      .slice(lead.length + form.open.length)
      .slice(0, -form.close.length || undefined),
  );
  return `${lead}${form.open}${inner.join(form.separator)}${form.close}`;
}

/** The families that declare their special tokens, with those tokens. */
const TOKENED = DIALECTS.flatMap((dialect) => {
  const tokens = WRITTEN_FORMS[dialect].tokens;
  return tokens === undefined ? [] : [{ dialect, tokens }];
});

const calls = (result: ParseResult) =>
  result.calls.map((call) => ({ name: call.toolName, arguments: call.arguments }));

const WEATHER = '{"name": "get_weather", "arguments": {"city": "Paris"}}';

describe('a blank between special tokens', () => {
  it('InternLM: `<|action_start|> <|plugin|>` opens the block as `<|action_start|><|plugin|>` does', () => {
    for (const dialect of ['internlm', 'auto'] as const) {
      const spaced = parse(`<|action_start|> <|plugin|>\n${WEATHER}<|action_end|>`, { dialect });
      expect(spaced.errors, dialect).toEqual([]);
      expect(spaced.warnings, dialect).toEqual([]);
      expect(spaced.text, dialect).toBe('');
      expect(calls(spaced), dialect).toEqual([
        { name: 'get_weather', arguments: { city: 'Paris' } },
      ]);
      const unspaced = parse(`<|action_start|><|plugin|>\n${WEATHER}<|action_end|>`, { dialect });
      expect(calls(spaced), dialect).toEqual(calls(unspaced));
    }
  });

  it('InternLM: the blank is part of the call, and streams in any chunks', () => {
    const text = `Let me look.<|action_start|> <|plugin|>\n${WEATHER}<|action_end|>`;
    fc.assert(
      fc.property(cutsArbitrary, (cuts) => {
        const { result, events } = feedChunks(splitAt(text, cuts), { dialect: 'internlm' });
        expectCallsSettle(events);
        expect(result.text).toBe('Let me look.');
        expect(result.calls.map((call) => call.raw)).toEqual([text.slice('Let me look.'.length)]);
      }),
      { numRuns: 60 },
    );
  });

  it("an opening's tokens are checked against it: they make the opening, and a body form reads it", () => {
    const [internlm] = blockReaders('internlm', []);
    expect(spacedOpenings(internlm).map((reader) => reader.open)).toEqual([
      '<|action_start|><|plugin|>',
      '<|action_start|> <|plugin|>',
    ]);
    expect(() =>
      spacedOpenings({ ...internlm, openTokens: ['<|action_start|>', '<|x|>'] }),
    ).toThrow(/do not make/);
    // A choice among body forms by the body's first character: each form's opening alike.
    const choosing = blockReaders('auto', []).find(
      (reader) =>
        'byFirstCharacter' in reader.reads &&
        reader.reads.byFirstCharacter.every((choice) => 'body' in choice),
    );
    if (choosing === undefined) throw new Error('auto has a reader that chooses among bodies');
    const halves = [choosing.open.slice(0, 3), choosing.open.slice(3)];
    const spacedChoice = spacedOpenings({ ...choosing, openTokens: halves })[1];
    expect(spacedChoice.open).toBe(halves.join(' '));
    expect(spacedChoice.reads).toEqual({
      byFirstCharacter: (
        choosing.reads as { byFirstCharacter: readonly FirstCharacterChoice[] }
      ).byFirstCharacter.map((choice) =>
        'body' in choice ? { ...choice, body: { ...choice.body, open: halves.join(' ') } } : choice,
      ),
    });
    const [anthropic] = blockReaders('anthropic-xml', []);
    const tokens = [anthropic.open.slice(0, 2), anthropic.open.slice(2)];
    expect(() => spacedOpenings({ ...anthropic, openTokens: tokens })).toThrow(/only a body form/);
  });

  it('every family that declares its special tokens declares some it writes', () => {
    expect(TOKENED.map(({ dialect }) => dialect)).toContain('internlm');
    for (const { dialect, tokens } of TOKENED) {
      const written = renderCallIn(dialect, { toolName: 'f', arguments: { a: 'b' } });
      expect(
        tokens.some((token) => written.includes(token)),
        dialect,
      ).toBe(true);
    }
  });

  it('the blanks are put somewhere: a family writes two of its tokens together', () => {
    const spacedFamilies = TOKENED.filter(({ dialect, tokens }) => {
      const reply = writtenCalls(dialect, [
        { toolName: 'f', arguments: { a: 'b' } },
        { toolName: 'g', arguments: { a: 'b' } },
      ]);
      const two = reply + reply;
      return spacedBetweenTokens(two, tokens) !== two;
    });
    expect(spacedFamilies.length).toBeGreaterThan(TOKENED.length / 2);
  });

  // No empty string: Gemma 4's `<|"|><|"|>` is one, and a blank between its quote tokens is
  // the string's text (docs/dialects.md).
  const argumentsArbitrary: fc.Arbitrary<ToolArguments> = fc.dictionary(
    fc.stringMatching(/^[a-z][a-z_]{0,7}$/),
    fc.oneof(fc.stringMatching(/^[a-zA-Z0-9 .,]{1,16}$/), fc.integer(), fc.boolean()),
    { maxKeys: 3 },
  );

  it.each(DIFFERENT_BESIDE_TEXT)(
    '%s reads a blank beside ordinary text differently, as documented',
    (dialect) => {
      const written = writtenCalls(dialect, [
        { toolName: 'get_weather', arguments: { city: 'Paris' } },
      ]);
      const decoded = decodedWithSpaces(written, WRITTEN_FORMS[dialect].tokens ?? []);
      expect(calls(parse(decoded, { dialect }))).not.toEqual(calls(parse(written, { dialect })));
    },
  );

  describe.each(TOKENED)('$dialect', ({ dialect, tokens }) => {
    const options = { dialect: dialect as Dialect, toolNames: ['get_weather', 'read_file'] };
    it('reads its calls the same with one blank between each two adjacent special tokens, in any chunks', () => {
      fc.assert(
        fc.property(
          argumentsArbitrary,
          argumentsArbitrary,
          fc.boolean(),
          fc.boolean(),
          cutsArbitrary,
          (first, second, two, twoReplies, cuts) => {
            const reply = writtenCalls(dialect, [
              { toolName: 'get_weather', arguments: first },
              ...(two ? [{ toolName: 'read_file', arguments: second }] : []),
            ]);
            // A second block right after the first: its opening stands against the first's close.
            const written = twoReplies ? reply + reply : reply;
            const spaced = spacedBetweenTokens(written, tokens);
            const plain = parse(written, options);
            const whole = parse(spaced, options);
            expect(whole.errors).toEqual([]);
            expect(whole.warnings.map((w) => w.code)).toEqual(plain.warnings.map((w) => w.code));
            expect(calls(whole)).toEqual(calls(plain));
            expect(calls(whole).length).toBeGreaterThan(0);
            const streamed = feedChunks(splitAt(spaced, cuts), options);
            expectCallsSettle(streamed.events);
            expect(calls(streamed.result)).toEqual(calls(plain));
            const auto = { ...options, dialect: 'auto' as const };
            expect(calls(parse(spaced, auto))).toEqual(calls(parse(written, auto)));
            const decoded = parse(decodedWithSpaces(written, tokens), options);
            if (DIFFERENT_BESIDE_TEXT.includes(dialect)) return;
            expect(decoded.errors).toEqual([]);
            expect(calls(decoded)).toEqual(calls(plain));
          },
        ),
        { numRuns: 40 },
      );
    });
  });
});
