// The parser's look-ahead bounds are written once, in src/protocol/lookahead.ts, and
// docs/parser.md lists the same rows.
//
// What "written outside the table" means, read with the TypeScript compiler from every source
// file of src/protocol but lookahead.ts:
// - a number: a numeric literal written in decimal whose value is one of the table's values of
//   16 or more. Smaller values (the entity bound, 10) are everywhere as offsets; literals
//   written in hex are character codes. Exempt: the radix of `parseInt`, and the uses listed in
//   NOT_LOOKAHEAD (caches, depths, chunk sizes that share a value), each by file, enclosing
//   declaration and value; an entry that no longer matches fails too.
// - a pattern: a regular expression literal, or a string or template text (patterns are also
//   built from strings), holding a repeat count `{n}`, `{n,}` or `{m,n}` with a number of 16 or
//   more: a bounded repeat is a look-ahead bound, built from the table's value.
import { readdirSync, readFileSync } from 'node:fs';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { LOOKAHEAD } from '../src/protocol/lookahead.js';

const PROTOCOL = new URL('../src/protocol/', import.meta.url);
const TABLE_FILE = 'lookahead.ts';
const SMALLEST_CHECKED = 16;

/** Literals of a table value that bound no look-ahead: file, enclosing declaration, value. */
const NOT_LOOKAHEAD: ReadonlyArray<{ file: string; within: string; value: number; why: string }> = [
  {
    file: 'json-depth.ts',
    within: 'MAX_RENDERED_DEPTH',
    value: 256,
    why: 'nesting of rendered arguments',
  },
  { file: 'parser.ts', within: 'openingTable', value: 256, why: 'cached opening tables' },
  { file: 'openings.ts', within: 'SHARED_SCAN_FROM', value: 256, why: 'when one shared scan pays' },
  { file: 'names.ts', within: 'MAX_KEPT_LENGTH', value: 64, why: 'longest name interned' },
  { file: 'tag.ts', within: 'readTag', value: 64, why: 'misses before the tag cache rests' },
  { file: 'tag.ts', within: 'MAX_KNOWN_LENGTH', value: 64, why: 'longest tag cached' },
  { file: 'tag.ts', within: 'knownTags', value: 512, why: 'slots of the tag cache' },
  { file: 'parser-options.ts', within: 'maxDepth', value: 32, why: 'nesting of arguments' },
  { file: 'body/model-json.ts', within: 'maxDepth', value: 32, why: 'nesting of arguments' },
  { file: 'pieces.ts', within: 'SHORT_PIECE', value: 32, why: 'pieces joined at once' },
  { file: 'body/model-strings.ts', within: 'SHORT_CHUNK', value: 32, why: 'a short chunk' },
  { file: 'markup/core.ts', within: 'SHORT_CHUNK', value: 16, why: 'a short chunk' },
  { file: 'markup/arguments-tree.ts', within: 'SHALLOW', value: 16, why: 'a shallow tree' },
  { file: 'regex-prefix.ts', within: 'isSpace', value: 32, why: 'the space character' },
];

/** The table's values that a literal must not repeat. */
const TABLE_VALUES = new Set(
  Object.values(LOOKAHEAD)
    .map((bound) => bound.value)
    .filter((value) => value >= SMALLEST_CHECKED),
);

/** A repeat count in a pattern: `{n}`, `{n,}`, `{m,n}`. */
const REPEAT = /\{(\d+)(?:,(\d*))?\}/g;

interface Finding {
  file: string;
  line: number;
  within: string;
  kind: 'number' | 'pattern';
  text: string;
}

/** The name of the innermost declaration around `node` (a variable, property, function …). */
function enclosingName(node: ts.Node): string {
  for (let at: ts.Node | undefined = node.parent; at !== undefined; at = at.parent) {
    if (
      (ts.isVariableDeclaration(at) ||
        ts.isPropertyAssignment(at) ||
        ts.isPropertyDeclaration(at) ||
        ts.isFunctionDeclaration(at) ||
        ts.isMethodDeclaration(at) ||
        ts.isParameter(at) ||
        ts.isClassDeclaration(at)) &&
      at.name !== undefined &&
      (ts.isIdentifier(at.name) || ts.isPrivateIdentifier(at.name))
    )
      return at.name.text;
  }
  return '';
}

/** The radix of a `parseInt` call (one branch of a conditional there counts too). */
const isRadix = (node: ts.Node): boolean => {
  let argument = node;
  while (
    ts.isConditionalExpression(argument.parent) ||
    ts.isParenthesizedExpression(argument.parent)
  )
    argument = argument.parent;
  const call = argument.parent;
  if (!ts.isCallExpression(call) || call.arguments[1] !== argument) return false;
  const callee = call.expression.getText();
  return callee === 'parseInt' || callee === 'Number.parseInt';
};

/** The bounds `code` writes outside the table (`file` is its path under src/protocol). */
function boundsWrittenIn(file: string, code: string): Finding[] {
  const source = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true);
  const found: Finding[] = [];
  const add = (node: ts.Node, kind: Finding['kind'], text: string) =>
    found.push({
      file,
      line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1,
      within: enclosingName(node),
      kind,
      text,
    });
  const visit = (node: ts.Node): void => {
    if (ts.isNumericLiteral(node)) {
      const decimal = !/^0[xob]/i.test(node.getText());
      if (decimal && TABLE_VALUES.has(Number(node.text)) && !isRadix(node))
        add(node, 'number', node.text);
    } else if (
      ts.isRegularExpressionLiteral(node) ||
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      // A template's raw text: what String.raw and a RegExp built from it read.
      const text = ts.isRegularExpressionLiteral(node) ? node.text : node.getText();
      for (const repeat of text.matchAll(REPEAT)) {
        const counts = [repeat[1], repeat[2]].filter(
          (count) => count !== undefined && count !== '',
        );
        if (counts.some((count) => Number(count) >= SMALLEST_CHECKED))
          add(node, 'pattern', repeat[0]);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const isListed = (finding: Finding) =>
  finding.kind === 'number' &&
  NOT_LOOKAHEAD.some(
    (use) =>
      use.file === finding.file &&
      use.within === finding.within &&
      use.value === Number(finding.text),
  );

function protocolFiles(): string[] {
  return (readdirSync(PROTOCOL, { recursive: true }) as string[])
    .map((file) => file.replaceAll('\\', '/'))
    .filter((file) => file.endsWith('.ts') && file !== TABLE_FILE)
    .sort();
}

const allFindings = () =>
  protocolFiles().flatMap((file) =>
    boundsWrittenIn(file, readFileSync(new URL(file, PROTOCOL), 'utf8')),
  );

describe('look-ahead bounds are written only in src/protocol/lookahead.ts', () => {
  it('no source of src/protocol writes one of its values or a bounded repeat', () => {
    const files = protocolFiles();
    expect(files).toEqual(
      expect.arrayContaining(['scanner.ts', 'tag.ts', 'dialects/glm.ts', 'body/kind.ts']),
    );
    const written = allFindings().filter((finding) => !isListed(finding));
    expect(written).toEqual([]);
  });

  it('each use listed as no look-ahead is still there', () => {
    const findings = allFindings();
    const unused = NOT_LOOKAHEAD.filter(
      (use) =>
        !findings.some(
          (finding) =>
            finding.file === use.file &&
            finding.within === use.within &&
            Number(finding.text) === use.value,
        ),
    );
    expect(unused).toEqual([]);
  });

  it('finds a bound planted in an engine module and in a declaration', () => {
    const tag = readFileSync(new URL('tag.ts', PROTOCOL), 'utf8');
    expect(boundsWrittenIn('tag.ts', tag).filter((finding) => !isListed(finding))).toEqual([]);
    const planted = `${tag}\nexport const MAX_LOOK_PAST_NAME = 300;\n`;
    expect(boundsWrittenIn('tag.ts', planted).filter((finding) => !isListed(finding))).toEqual([
      expect.objectContaining({ kind: 'number', text: '300', within: 'MAX_LOOK_PAST_NAME' }),
    ]);
    const glm = readFileSync(new URL('dialects/glm.ts', PROTOCOL), 'utf8');
    expect(boundsWrittenIn('dialects/glm.ts', glm)).toEqual([]);
    const declared = [
      'const A = /<k>([^<]{1,256})<\\/k>/y;',
      "const B = new RegExp('\\\\s{0,64}>');",
      'const C = String.raw`[ \\t]{2,\u0024{n}}x{16}`;',
      'const D = /x{0,15}/;',
    ].join('\n');
    expect(boundsWrittenIn('dialects/glm.ts', declared).map((finding) => finding.text)).toEqual([
      '{1,256}',
      '{0,64}',
      '{16}',
    ]);
  });
});

describe("docs/parser.md's table of look-ahead bounds", () => {
  const docs = readFileSync(new URL('../docs/parser.md', import.meta.url), 'utf8');
  const header = '| bound | value | what it bounds | past it |';
  /** The table's rows: name, value cell and outcome cell. */
  const rows = () => {
    const lines = docs.slice(docs.indexOf(header)).split('\n').slice(2);
    const table = lines.slice(
      0,
      lines.findIndex((line) => !line.startsWith('|')),
    );
    return table.map((line) => {
      const [name, value, , past] = line.split(' | ');
      return { name: name.replace(/^\| `|`$/g, ''), value, past };
    });
  };

  it('lists every row of lookahead.ts, in its order, with its value and outcome', () => {
    expect(docs).toContain(header);
    expect(rows().map((row) => row.name)).toEqual(Object.keys(LOOKAHEAD));
    for (const row of rows()) {
      const bound = LOOKAHEAD[row.name as keyof typeof LOOKAHEAD];
      expect(row.value.split(' ')[0], row.name).toBe(String(bound.value));
      if (bound.option !== undefined)
        expect(row.value, row.name).toContain(`option \`${bound.option}\``);
      expect(row.past.startsWith(`${bound.past}:`), row.name).toBe(true);
    }
  });
});
