// What a family writes is declared once, in its module (src/protocol/dialects/NAME.ts): the
// renderer and the grammar builder read that row (dialect-grammar.test.ts checks they agree),
// and the layers above the declarations hold no family's name or marker of their own.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  admitsName,
  DIALECT_VALUES,
  DIALECTS,
  type Dialect,
  renderCallIn,
  triggerOf,
  WRITTEN_FORMS,
} from './support/all.js';
import { functionMembers } from './support/function-members.js';

const SOURCE = new URL('../src/', import.meta.url).pathname;
/** The layers that read the declarations: the grammar builder, the CLI, the adapters. */
const READERS = ['grammar', 'cli', 'adapters'];

const families = DIALECTS.filter((d): d is Exclude<Dialect, 'tagcall'> => d !== 'tagcall');

/** A file's code without its comments (`//` to the line's end, `/* … *\/` blocks). */
const code = (text: string) =>
  text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:"'`])\/\/.*$/gm, '$1');

const files = READERS.flatMap((dir) =>
  readdirSync(join(SOURCE, dir), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => ({
      path: `src/${dir}/${name}`,
      text: code(readFileSync(join(SOURCE, dir, name), 'utf8')),
    })),
);

/** The tags and tokens a family's call is written with (its tool's and argument's names left out). */
function markersOf(dialect: Exclude<Dialect, 'tagcall'>): string[] {
  const rendered = renderCallIn(dialect, { toolName: 'NAME', arguments: { KEY: 'v' } });
  const tags = rendered.match(/<[^<>\s]{2,60}>|\[[A-Z][A-Z_]{2,30}\]/g) ?? [];
  const trigger = triggerOf(WRITTEN_FORMS[dialect], 'NAME');
  const fixed = trigger.includes('NAME') || trigger.trim().length < 4 ? [] : [trigger];
  return [...new Set([...tags, ...fixed])].filter((m) => !m.includes('NAME') && !m.includes('KEY'));
}

describe('written forms', () => {
  it('every family declares what it writes; the renderer writes it', () => {
    for (const dialect of families) {
      expect(WRITTEN_FORMS[dialect], dialect).toBeDefined();
      // The list of dialects says how each writes values; its row writes them so.
      expect(WRITTEN_FORMS[dialect].args.kind, dialect).toBe(DIALECT_VALUES[dialect]);
      expect(
        markersOf(dialect).length + triggerOf(WRITTEN_FORMS[dialect], 'x').length,
        dialect,
      ).toBeGreaterThan(0);
    }
  });

  it('the grammar builder, the CLI and the adapters hold no family name or marker of their own', () => {
    const found: string[] = [];
    for (const dialect of families)
      for (const { path, text } of files) {
        for (const marker of markersOf(dialect))
          if (text.includes(marker)) found.push(`${path}: ${dialect}'s ${JSON.stringify(marker)}`);
        if (text.includes(`'${dialect}'`) || text.includes(`"${dialect}"`))
          found.push(`${path}: the name ${dialect}`);
      }
    expect(found).toEqual([]);
  });

  it('each element form admits as an argument name what its tags can hold', () => {
    const long = 'k'.repeat(256);
    const keys = ['k', '', ' k', 'a"b', 'a&b', 'a<b', 'a>b', 'a\nb', '1k', 'a.b', long, `${long}k`];
    const admitted = (dialect: Dialect) => {
      const { args } = WRITTEN_FORMS[dialect];
      return args.kind === 'text' ? keys.filter((key) => admitsName(args.names, key)) : [];
    };
    // `name="…"` holds anything but its quote, even nothing.
    const invoke = ['k', '', ' k', 'a&b', 'a<b', 'a>b', 'a\nb', '1k', 'a.b', long];
    for (const dialect of ['anthropic-xml', 'minimax-m2', 'deepseek-dsml', 'gigachat35', 'step3'])
      expect(admitted(dialect as Dialect), dialect).toEqual(invoke);
    // Kimi K3's `key="…"`: its template escapes `&` and `"` there (`&amp;`), which the reader keeps.
    expect(admitted('kimi-k3')).toEqual(invoke.filter((key) => key !== 'a&b'));
    // Between tags, trimmed by the reader: not empty, no blank at an end, no `<`.
    expect(admitted('glm')).toEqual(['k', 'a"b', 'a&b', 'a>b', 'a\nb', '1k', 'a.b', long]);
    // `<parameter=…>` ends at `>` or a line's end.
    for (const dialect of ['qwen3-coder', 'seed-oss'] as const)
      expect(admitted(dialect), dialect).toEqual(['k', 'a"b', 'a&b', 'a<b', '1k', 'a.b', long]);
    // A tag name, as the parser reads one: 256 characters is one past the longest (`tagName`).
    expect(admitted('cline')).toEqual(['k', 'a.b']);
  });

  it("a form that says a value's JSON type writes each value's (Kimi K3's type=\"…\")", () => {
    const args = { s: 'x', n: 3, b: false, z: null, o: { a: 1 }, l: [1] };
    const rendered = renderCallIn('kimi-k3', { toolName: 'f', arguments: args });
    const types = [...rendered.matchAll(/key="(\w)" type="(\w+)"/g)].map((m) => `${m[1]}:${m[2]}`);
    expect(types).toEqual(['s:string', 'n:number', 'b:boolean', 'z:null', 'o:object', 'l:array']);
    expect(rendered).toContain('<|sep|>x<|close|>argument<|sep|>');
    expect(rendered).toContain('<|sep|>{"a":1}<|close|>argument<|sep|>');
  });

  it('a written row is data: no member of WrittenForm, at any depth, is a function', () => {
    // Templates with slots, name rules, value modes and forbidden texts, read by the renderer
    // and the grammar builder: a row holds no code of its own.
    expect(functionMembers(join(SOURCE, 'protocol/dialects/written.ts'), 'WrittenForm')).toEqual(
      [],
    );
  });
});
