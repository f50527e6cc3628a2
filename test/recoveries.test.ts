// #42: a family's recoveries are rows of its declaration, each naming the warning it emits, and
// the engine emits a warning only through such a row. Three checks hold that:
// - every warning of every recorded case (the cases of fixtures/engine-events/: every fixture,
//   peer case and seeded property-generator sample the recorder feeds, per dialect) is one of
//   its dialect's declared rows: its code, in its words;
// - the engine's code (src/protocol outside dialects/) writes no warning text: no string in a
//   `warn(…)` call or a warning event;
// - docs/dialects.md's table of recoveries is the declarations' (RECOVERIES_TABLE=write writes it).
// Declared rows that no recorded case exercises are reported, not failed (docs/dialects.md,
// "What a family recovers from").
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import type { BlockSink } from '../src/protocol/block.js';
import { DIALECT_RECOVERIES } from '../src/protocol/dialects/index.js';
import { QWEN3_CODER_FORM } from '../src/protocol/dialects/qwen3-coder.js';
import { MARKUP_RECOVERIES } from '../src/protocol/dialects/recoveries.js';
import { TAGCALL_FORM } from '../src/protocol/dialects/tagcall.js';
import { MarkupReader } from '../src/protocol/markup/reader.js';
import {
  placeholdersOf,
  RECOVERY_VALUES,
  type Recovery,
  type RecoveryKind,
} from '../src/protocol/recoveries.js';
import { DIALECTS, type Dialect } from './support/all.js';
import { ALL_DIALECTS } from './support/dialect-inputs.js';
import { outcomeOf, type RecordedEvent, readRecording } from './support/engine-recording.js';

type Row = readonly [RecoveryKind, Recovery];

/** A template's words as a pattern: its values may be any text. */
const wordsOf = (message: string) =>
  new RegExp(
    `^${message
      .split(/\{[a-z]+\}/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[\\s\\S]*')}$`,
  );

/** A dialect's rows; `auto` reads every family, so it has all of theirs. */
function rowsOf(dialect: Dialect | 'auto'): Row[] {
  const dialects = dialect === 'auto' ? DIALECTS : [dialect];
  return dialects.flatMap((d) =>
    (Object.entries(DIALECT_RECOVERIES[d]) as Array<[RecoveryKind, Recovery]>).map(
      ([kind, row]) => [kind, row] as const,
    ),
  );
}

interface Found {
  /** A warning whose code no row of the dialect names. */
  undeclared: string[];
  /** A warning whose code is declared, in words none of those rows has. */
  unworded: string[];
  /** The kinds whose rows a warning was emitted through. */
  exercised: Set<RecoveryKind>;
}

/** Which of the dialect's rows the warnings came through, and which came through none. */
function checkWarnings(
  dialect: Dialect | 'auto',
  warnings: ReadonlyArray<{ code: string; message: string; where: string }>,
): Found {
  const rows = rowsOf(dialect).map(([kind, row]) => ({ kind, row, words: wordsOf(row.message) }));
  const found: Found = { undeclared: [], unworded: [], exercised: new Set() };
  for (const { code, message, where } of warnings) {
    const sameCode = rows.filter(({ row }) => row.code === code);
    const matching = sameCode.filter(({ words }) => words.test(message));
    if (sameCode.length === 0) found.undeclared.push(`${dialect} ${code} (${where}): ${message}`);
    else if (matching.length === 0)
      found.unworded.push(`${dialect} ${code} (${where}): ${message}`);
    for (const { kind } of matching) found.exercised.add(kind);
  }
  return found;
}

/** The warnings today's engine emits on a dialect's recorded cases (whole and chunked). */
function recordedWarnings(dialect: Dialect | 'auto') {
  const warnings: Array<{ code: string; message: string; where: string }> = [];
  for (const { case: c } of readRecording(dialect)) {
    if (c.kind !== 'parse') continue;
    for (const events of Object.values(outcomeOf(c)) as RecordedEvent[][])
      for (const event of events)
        if (event.type === 'warning')
          warnings.push({
            code: event.code as string,
            message: event.message as string,
            where: c.name,
          });
  }
  return warnings;
}

describe("every warning is a row of its dialect's declaration", () => {
  const unexercised: string[] = [];
  const exercisedKinds = new Set<RecoveryKind>();
  afterAll(() => {
    // The report: rows whose recovery no recorded case makes (the recording's corpus does not
    // hold such a mistake of that family, or the family's forms cannot make it).
    console.log(
      `${exercisedKinds.size} of ${Object.keys(RECOVERY_VALUES).length} kinds exercised; declared rows no recorded case exercises:\n${unexercised.join('\n')}`,
    );
  });

  for (const dialect of ALL_DIALECTS)
    it(dialect, () => {
      const warnings = recordedWarnings(dialect);
      const found = checkWarnings(dialect, warnings);
      for (const kind of found.exercised) exercisedKinds.add(kind);
      if (dialect !== 'auto') {
        const idle = rowsOf(dialect)
          .map(([kind]) => kind)
          .filter((kind) => !found.exercised.has(kind));
        if (idle.length > 0) unexercised.push(`  ${dialect}: ${idle.join(', ')}`);
      }
      expect(found.undeclared, 'warnings whose code the declaration does not list').toEqual([]);
      expect(found.unworded, 'warnings in words none of its rows has').toEqual([]);
    });

  it('exercises most kinds of recovery over all the dialects', () => {
    // Not vacuous: the recorded corpus makes the engine recover, and through many rows.
    expect(exercisedKinds.size).toBeGreaterThanOrEqual(25);
  });

  it('fails on a warning whose code its dialect does not declare, or in other words', () => {
    const found = checkWarnings('qwen3-coder', [
      // The `<tool>` protocol's, not Qwen3-Coder's.
      { code: 'deprecated-json-format', message: 'x', where: 'planted' },
      { code: 'missing-wrapper', message: 'made-up words', where: 'planted' },
      {
        code: 'missing-wrapper',
        message: 'write the call inside <tool_call> … </tool_call>',
        where: 'planted',
      },
    ]);
    expect(found.undeclared).toEqual(['qwen3-coder deprecated-json-format (planted): x']);
    expect(found.unworded).toEqual(['qwen3-coder missing-wrapper (planted): made-up words']);
    expect([...found.exercised]).toEqual(['missing-wrapper']);
  });

  it('fails as a reader is built whose declaration lacks a row its shape can make', () => {
    const limits = { maxDepth: 8, schemas: undefined };
    const sink = {} as BlockSink;
    // Qwen3-Coder's literal tags without their unclosed call and value, repeated parameter rows.
    const lacking = { ...QWEN3_CODER_FORM, recoveries: MARKUP_RECOVERIES };
    expect(() => new MarkupReader(lacking, sink, limits)).toThrow(
      'the qwen3-coder declaration has no "unclosed-value" recovery row',
    );
    // The `<tool>` form's rows are XML elements', not literal tags'.
    const mixed = { ...QWEN3_CODER_FORM, recoveries: TAGCALL_FORM.recoveries };
    expect(() => new MarkupReader(mixed, sink, limits)).toThrow('"unclosed-value"');
    expect(() => new MarkupReader(QWEN3_CODER_FORM, sink, limits)).not.toThrow();
  });

  it("declares each template with only its kind's values", () => {
    const wrong = ALL_DIALECTS.filter((d) => d !== 'auto').flatMap((dialect) =>
      rowsOf(dialect).flatMap(([kind, row]) =>
        placeholdersOf(row.message)
          .filter((name) => !(RECOVERY_VALUES[kind] as readonly string[]).includes(name))
          .map((name) => `${dialect} ${kind}: {${name}}`),
      ),
    );
    expect(wrong).toEqual([]);
  });
});

// --- The engine writes no warning text. ---

const PROTOCOL = new URL('../src/protocol/', import.meta.url);
/** The engine: src/protocol's modules but the declarations (dialects/). */
const ENGINE_FILES = ['', 'markup/', 'body/'].flatMap((folder) =>
  readdirSync(new URL(folder, PROTOCOL))
    .filter((file) => file.endsWith('.ts'))
    .map((file) => `${folder}${file}`),
);

const isText = (node: ts.Node) =>
  ts.isStringLiteral(node) ||
  ts.isNoSubstitutionTemplateLiteral(node) ||
  ts.isTemplateExpression(node);

/** The string and template literals in `node`, and in the `const`s of the file it names. */
function textsIn(node: ts.Node, constants: ReadonlyMap<string, ts.Node>): ts.Node[] {
  const found: ts.Node[] = [];
  const visit = (n: ts.Node): void => {
    if (isText(n)) found.push(n);
    else if (ts.isIdentifier(n) && constants.has(n.text))
      found.push(...textsIn(constants.get(n.text) as ts.Node, new Map()));
    else ts.forEachChild(n, visit);
  };
  visit(node);
  return found;
}

/**
 * Warning text in a module's code: a string or template in the arguments of a `warn(…)` call
 * (or a `const` it names), or in a warning event (`{ type: 'warning', … }`) but its type.
 */
function warningTexts(file: string, code: string): string[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const constants = new Map<string, ts.Node>();
  const collect = (node: ts.Node): void => {
    if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer)
      constants.set(node.name.text, node.initializer);
    ts.forEachChild(node, collect);
  };
  collect(source);
  const found: string[] = [];
  const report = (nodes: ts.Node[]) => {
    for (const n of nodes) {
      const line = source.getLineAndCharacterOfPosition(n.getStart()).line + 1;
      found.push(`${file}:${line}: ${n.getText().slice(0, 80)}`);
    }
  };
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'warn'
    )
      for (const argument of node.arguments) report(textsIn(argument, constants));
    if (
      ts.isObjectLiteralExpression(node) &&
      node.properties.some(
        (p) =>
          ts.isPropertyAssignment(p) &&
          p.name.getText() === 'type' &&
          ts.isStringLiteral(p.initializer) &&
          p.initializer.text === 'warning',
      )
    )
      for (const p of node.properties)
        if (!(ts.isPropertyAssignment(p) && p.name.getText() === 'type'))
          report(textsIn(p, constants));
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('the engine holds no warning text of its own', () => {
  it('writes none in a warn(…) call or a warning event', () => {
    expect(ENGINE_FILES).toEqual(
      expect.arrayContaining(['scanner.ts', 'thinking.ts', 'markup/core.ts', 'body/calls.ts']),
    );
    const found = ENGINE_FILES.flatMap((file) =>
      warningTexts(file, readFileSync(new URL(file, PROTOCOL), 'utf8')),
    );
    expect(found).toEqual([]);
  });

  it('finds such text where it is planted', () => {
    const planted = [
      "core.warn('stray-text', 'text is ignored', at);",
      // biome-ignore lint/suspicious/noTemplateCurlyInString: engine code as text, planted
      'const words = `<${name}> was not closed`;\nthis.sink.warn(row.code, words, at);',
      // biome-ignore lint/suspicious/noTemplateCurlyInString: engine code as text, planted
      "emit({ type: 'warning', code: row.code, message: `no ${close}`, offset });",
      // What the engine writes instead: the row's code and words.
      'this.sink.warn(row.code, recoveryMessage(row, { close }), at);',
    ];
    expect(planted.map((code) => warningTexts('planted.ts', code).length)).toEqual([2, 1, 1, 0]);
  });
});

// --- docs/dialects.md's table, written from the declarations. ---

const DOCS = new URL('../docs/dialects.md', import.meta.url);
const START = '<!-- recoveries: written by test/recoveries.test.ts from the declarations -->';
const END = '<!-- /recoveries -->';

/**
 * Each recovery and its warning, with the dialects that declare it so: recoveries declared by
 * the same dialects share a row, in the order of RECOVERY_VALUES.
 */
function recoveriesTable(): string {
  const declaring = new Map<string, Dialect[]>();
  for (const dialect of DIALECTS)
    for (const [kind, row] of rowsOf(dialect)) {
      const pair = `\`${kind}\` → \`${row.code}\``;
      declaring.set(pair, [...(declaring.get(pair) ?? []), dialect]);
    }
  const rows = new Map<string, string[]>();
  for (const [pair, which] of declaring) {
    const named =
      which.length === DIALECTS.length ? 'every dialect' : which.map((d) => `\`${d}\``).join(', ');
    rows.set(named, [...(rows.get(named) ?? []), pair]);
  }
  const lines = [...rows].map(([named, pairs]) => `| ${pairs.join(', ')} | ${named} |`);
  return ['| recovery → warning | dialects that declare it |', '|---|---|', ...lines].join('\n');
}

describe('docs/dialects.md lists every family’s recoveries', () => {
  it('holds the table the declarations write', () => {
    let text = readFileSync(DOCS, 'utf8');
    const start = text.indexOf(START);
    const end = text.indexOf(END);
    expect(start, `docs/dialects.md holds ${START} … ${END}`).toBeGreaterThan(-1);
    expect(end).toBeGreaterThan(start);
    // `RECOVERIES_TABLE=write npx vitest run test/recoveries.test.ts` writes it there.
    if (process.env.RECOVERIES_TABLE === 'write') {
      text = `${text.slice(0, start + START.length)}\n${recoveriesTable()}\n${text.slice(end)}`;
      writeFileSync(DOCS, text);
    }
    const written = text.slice(start + START.length, text.indexOf(END)).trim();
    expect(written, 'run with RECOVERIES_TABLE=write to write it').toBe(recoveriesTable());
  });
});
