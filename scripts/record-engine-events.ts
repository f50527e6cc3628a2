// `npm run record:engine-events`: writes fixtures/engine-events/, the recording of the engine's
// events that test/engine-differential.test.ts compares the engine against (docs/development.md,
// "The engine's recording"). Re-record only when a change of events is intended, and say in the
// commit which events changed and why. The output depends on nothing but the engine and the
// inputs: the samples are drawn with fixed seeds, every list is sorted, and nothing is timed.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { TOOLS } from '../bench/render-templates.js';
import {
  DIALECTS,
  type Dialect,
  type DialectGrammarOptions,
  type GrammarDialect,
  type JsonSchema,
  type ParseOptions,
  type ToolLike,
} from '../test/support/all.js';
import {
  ALL_DIALECTS,
  dialectInputs,
  markerSoup,
  optionsOf,
  replyIn,
} from '../test/support/dialect-inputs.js';
import {
  delimiterSoupArbitrary,
  dialectSoupArbitrary,
  documentArbitrary,
  proseLinesArbitrary,
} from '../test/support/documents.js';
import {
  type EngineCase,
  linesOf,
  outcomeOf,
  RECORDING_DIR,
  type RenderableCall,
  recordingFile,
} from '../test/support/engine-recording.js';
import { optionsOfCase, peerSuites } from '../test/support/peer-suites.js';

const SEED = 42;
const REPLIES = 100;
const SOUPS = 30;

const byName = <T extends { name: string }>(a: T, b: T) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : 0;

/** A seeded sample of `arbitrary`, the same on every run. */
const sample = <T>(arbitrary: fc.Arbitrary<T>, numRuns: number, seed = SEED) =>
  fc.sample(arbitrary, { seed, numRuns });

const fixtures = dialectInputs().sort(byName);
const readerOf = (options: ParseOptions) => options.dialect ?? 'tagcall';
const schemas = Object.fromEntries(
  TOOLS.map((t) => [t.name as string, t.parameters as JsonSchema]),
) as Record<string, JsonSchema>;

/** Every peer case, named after its suite, in a stable order. */
const peerCases = peerSuites()
  .sort((a, b) => (a.file < b.file ? -1 : 1))
  .flatMap((suite) => {
    const seen = new Map<string, number>();
    return suite.cases.map((c) => {
      const n = seen.get(c.name) ?? 0;
      seen.set(c.name, n + 1);
      return { name: `peer/${suite.file}/${c.name}${n > 0 ? ` #${n + 1}` : ''}`, c };
    });
  });

/** The inputs the tests feed the parser, as cases of the dialect that reads them. */
function parseCases(dialect: Dialect | 'auto'): EngineCase[] {
  const cases: EngineCase[] = [];
  const add = (name: string, options: ParseOptions, input: string, chunked = true) =>
    cases.push({ kind: 'parse', name, options, input, chunked });
  for (const f of fixtures)
    if (readerOf(f.options) === dialect) {
      add(`fixture/${f.name}`, f.options, f.text);
      // As the middleware and the proxy read them: with the tools' schemas.
      if (f.name.startsWith('rendered/'))
        add(`fixture/${f.name} (with schemas)`, { ...f.options, schemas }, f.text);
    }
  for (const { name, c } of peerCases)
    if (c.dialect === dialect) add(name, optionsOfCase(c), c.input);
  // Every other family's fixtures, read by this dialect (whole only, for size): what it must
  // leave alone, or read as its own where the forms are shared.
  for (const f of fixtures)
    if (readerOf(f.options) !== dialect) add(`other/${f.name}`, optionsOf(dialect), f.text, false);

  const options = optionsOf(dialect);
  const written: Dialect = dialect === 'auto' ? 'qwen3-coder' : dialect;
  sample(replyIn(written), REPLIES).forEach((text, i) => {
    add(`sample/reply-in-${written}/${i}`, options, text);
  });
  if (dialect === 'auto')
    for (const d of DIALECTS)
      sample(replyIn(d), 6).forEach((text, i) => {
        add(`sample/reply-in-${d}/${i}`, options, text);
      });
  sample(markerSoup, SOUPS).forEach((text, i) => {
    add(`sample/marker-soup/${i}`, options, text);
  });
  const soupOptions: ParseOptions = { dialect, toolNames: ['read_file'] };
  sample(dialectSoupArbitrary, SOUPS).forEach((text, i) => {
    add(`sample/dialect-soup/${i}`, soupOptions, text);
  });
  if (dialect === 'tagcall') {
    const generators = {
      document: documentArbitrary,
      'delimiter-soup': delimiterSoupArbitrary,
      'prose-lines': proseLinesArbitrary,
      'binary-string': fc.string({ unit: 'binary', maxLength: 300 }),
    };
    for (const [label, arbitrary] of Object.entries(generators))
      sample(arbitrary, SOUPS).forEach((text, i) => {
        add(`sample/${label}/${i}`, {}, text);
      });
  }
  // The option sets test/chunk-invariance.test.ts decides under.
  const limited: Array<[string, ParseOptions]> =
    dialect === 'tagcall'
      ? [
          ['tight limits', { maxHold: 40, maxCallBytes: 120, maxDepth: 2 }],
          ['tiny limits', { maxHold: 5, maxCallBytes: 30, maxDepth: 1 }],
          ['prefilled thinking', { prefilledThinking: 'always' }],
          ['no prefilled thinking', { prefilledThinking: 'never' }],
        ]
      : dialect === 'auto'
        ? [['call bytes 40', { dialect, toolNames: ['read_file'], maxCallBytes: 40 }]]
        : [];
  const mixed = fc.oneof(documentArbitrary, delimiterSoupArbitrary, dialectSoupArbitrary);
  for (const [label, limits] of limited)
    sample(mixed, SOUPS).forEach((text, i) => {
      add(`sample/${label}/${i}`, limits, text);
    });
  return cases;
}

/** Calls whose values hold what a format must escape or keep: its closes, `<`, `&`, unicode. */
const RENDERED_CALLS: Array<[string, RenderableCall]> = [
  ['plain', { toolName: 'read_file', arguments: { path: 'src/a.ts' } }],
  ['no arguments', { toolName: 'list_files', arguments: {} }],
  [
    'closing tags',
    {
      toolName: 'write_file',
      arguments: {
        path: 'a.xml',
        content:
          '</tool_call> </function> </invoke> </parameter> </arg_value> ]]> <|tool_call_end|> <｜tool▁call▁end｜> </content>\n</write_file> <tool_call|> [/TOOL_CALLS] <|call|>',
      },
    },
  ],
  [
    'code',
    {
      toolName: 'write_file',
      arguments: {
        path: 'x.ts',
        content: 'if (a < b && c > d) { s = "</p>"; }\n&amp; &lt; &#x41;',
      },
    },
  ],
  [
    'unicode and empty',
    {
      toolName: 'write_to_file',
      arguments: { path: 'é 🎉 中文 \u00a0', content: '', note: ' ', quote: 'it\'s "x" \\ y' },
    },
  ],
  [
    'typed and nested',
    {
      toolName: 'replace_in_file',
      arguments: {
        n: 3,
        ratio: -1.5,
        force: true,
        none: null,
        list: ['a', '<b>', 2],
        options: { depth: 2, inner: { s: '</parameter>', t: [] } },
      },
    },
  ],
];

function renderCases(dialect: Dialect): EngineCase[] {
  return RENDERED_CALLS.map(([name, call]) => ({
    kind: 'render',
    name: `render/${name}`,
    dialect,
    call,
  }));
}

const tool = (name: string, inputSchema: ToolLike['inputSchema']): ToolLike => ({
  serverName: 'local',
  name,
  inputSchema,
});
const TOOL_SETS: Array<[string, ToolLike[]]> = [
  [
    'weather',
    [
      tool('get_weather', {
        type: 'object',
        properties: { city: { type: 'string' }, days: { type: 'integer' } },
        required: ['city'],
      }),
    ],
  ],
  [
    'files',
    [
      tool('write_file', {
        type: 'object',
        properties: { path: { type: 'string' }, content: { type: 'string' } },
        required: ['path', 'content'],
      }),
      tool('search', {
        type: 'object',
        properties: {
          query: { type: 'string' },
          limit: { type: 'number' },
          exact: { type: 'boolean' },
          mode: { enum: ['fast', 'full'] },
          tags: { type: 'array', items: { type: 'string' } },
          range: {
            type: 'object',
            properties: { from: { type: 'integer' }, to: { type: 'integer' } },
          },
        },
        required: ['query'],
      }),
    ],
  ],
];

/** A reply's grammar (free text, then calls) once; the calls alone and the lazy form for both tool sets. */
const GRAMMAR_SCOPES: Array<[string, DialectGrammarOptions, boolean]> = [
  ['reply', {}, false],
  ['calls only', { allowText: false }, true],
  ['trigger', { scope: 'trigger' }, true],
];

function grammarCases(dialect: GrammarDialect): EngineCase[] {
  return TOOL_SETS.flatMap(([label, tools], set) =>
    GRAMMAR_SCOPES.filter(([, , everySet]) => everySet || set === 0).map(([scope, options]) => ({
      kind: 'grammar' as const,
      name: `grammar/${label}/${scope}`,
      dialect,
      tools,
      options,
    })),
  );
}

rmSync(RECORDING_DIR, { recursive: true, force: true });
mkdirSync(RECORDING_DIR, { recursive: true });
const counts: string[] = [];
let bytes = 0;
for (const dialect of ALL_DIALECTS) {
  const cases = [
    ...parseCases(dialect),
    ...(dialect === 'auto' ? [] : renderCases(dialect)),
    ...(dialect === 'auto' || dialect === 'tagcall' ? [] : grammarCases(dialect)),
  ];
  const lines = cases.flatMap((c) => linesOf(c, outcomeOf(c)));
  const text = `${lines.join('\n')}\n`;
  writeFileSync(recordingFile(dialect), gzipSync(text, { level: 9 }));
  counts.push(`${dialect} ${cases.length}`);
  bytes += Buffer.byteLength(text);
}
console.log(`recorded ${counts.join(', ')}; ${(bytes / 2 ** 20).toFixed(1)} MiB of JSONL`);
