import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DIALECTS,
  type Dialect,
  type ParseOptions,
  parse,
  type ToolArguments,
} from './support/all.js';
import { cutsArbitrary, feedChunks, splitAt } from './support/chunk.js';
import { renderInDialect } from './support/dialect-render.js';

const DIALECTS_DIR = fileURLToPath(new URL('../fixtures/dialects/', import.meta.url));

function fixtures() {
  return readdirSync(DIALECTS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .flatMap((dialect) => {
      const dir = join(DIALECTS_DIR, dialect);
      const toolsFile = join(dir, 'tools.json');
      const options: ParseOptions = {
        dialect: dialect as Dialect | 'auto',
        ...(existsSync(toolsFile) && { toolNames: JSON.parse(readFileSync(toolsFile, 'utf8')) }),
      };
      return readdirSync(dir)
        .filter((file) => file.endsWith('.txt'))
        .sort()
        .map((file) => ({
          name: `${dialect}/${file.slice(0, -4)}`,
          expected: join(dir, `${file.slice(0, -4)}.expected.json`),
          text: readFileSync(join(dir, file), 'utf8'),
          options,
        }));
    });
}

describe('dialect fixtures parse as their .expected.json says', () => {
  for (const fixture of fixtures()) {
    it(fixture.name, async () => {
      const result = parse(fixture.text, fixture.options);
      await expect(`${JSON.stringify(result, null, 2)}\n`).toMatchFileSnapshot(fixture.expected);
    });
  }
});

describe('dialects are chunk-invariant', () => {
  for (const fixture of fixtures()) {
    it(`${fixture.name}: 300 random chunkings and one character a chunk`, () => {
      const whole = parse(fixture.text, fixture.options);
      expect(feedChunks([...fixture.text], fixture.options).result).toEqual(whole);
      fc.assert(
        fc.property(cutsArbitrary, (cuts) => {
          expect(feedChunks(splitAt(fixture.text, cuts), fixture.options).result).toEqual(whole);
        }),
        { numRuns: 300 },
      );
    });
  }
});

const value = fc
  .string({ unit: 'grapheme', maxLength: 20 })
  .filter((s) => s.trim() === s && s !== '');
const argsArbitrary = fc.dictionary(fc.constantFrom('path', 'query', 'content', 'mode'), value, {
  minKeys: 1,
  maxKeys: 3,
}) as fc.Arbitrary<ToolArguments>;
const prose = fc.constantFrom('', 'Let me do that.\n', 'Sure < sure & done.\n', '[plan it]\n');

describe('generated replies in each dialect: the calls come back, nothing is lost', () => {
  for (const dialect of DIALECTS.filter((d) => d !== 'tagcall')) {
    it(dialect, () => {
      const options: ParseOptions = { dialect, toolNames: ['read_file', 'write_to_file'] };
      fc.assert(
        fc.property(
          fc.array(fc.tuple(prose, fc.constantFrom('read_file', 'write_to_file'), argsArbitrary), {
            minLength: 1,
            maxLength: 4,
          }),
          cutsArbitrary,
          (parts, cuts) => {
            const text = parts
              .map(([before, tool, args]) => `${before}${renderInDialect(dialect, tool, args)}\n`)
              .join('');
            const { result, events } = feedChunks(splitAt(text, cuts), options);
            expect(result.errors).toEqual([]);
            expect(result.calls.map((c) => [c.format, c.toolName, { ...c.arguments }])).toEqual(
              parts.map(([, tool, args]) => [dialect, tool, { ...args }]),
            );
            // Every character is text, thinking or a call's raw text, in order.
            let rebuilt = '';
            for (const e of events) {
              if (e.type === 'text') rebuilt += e.text;
              if (e.type === 'tool-end') rebuilt += e.call.raw;
              if (e.type === 'thinking-start' && e.format === 'bracket') rebuilt += '[';
              if (e.type === 'thinking-delta') rebuilt += e.text;
              if (e.type === 'thinking-end') rebuilt += ']';
            }
            expect(rebuilt).toBe(text);
          },
        ),
        { numRuns: 300 },
      );
    });
  }
});

describe('cline values: trimmed, but for the files’ text', () => {
  it('trims a parameter named like an object’s own property, and keeps content’s inner newlines', () => {
    const text =
      '<write_to_file>\n<constructor>  a  </constructor>\n<toString> b </toString>\n' +
      '<content>\n\n x \n\n</content>\n</write_to_file>\n';
    const result = parse(text, { dialect: 'cline', toolNames: ['write_to_file'] });
    expect(result.calls.map((c) => c.arguments)).toEqual([
      { constructor: 'a', toString: 'b', content: '\n x \n' },
    ]);
  });
});

describe('cline tool names that other forms own', () => {
  it('a tool named think does not turn <think> into a call', () => {
    const result = parse('<think>\nplan\n</think>\n<read_file>\n<path>a</path>\n</read_file>\n', {
      dialect: 'auto',
      toolNames: ['think', 'read_file'],
    });
    expect(result.thinking).toEqual(['\nplan\n']);
    expect(result.calls.map((c) => c.toolName)).toEqual(['read_file']);
  });
});
