// Tool lists the sampler test samples under: every kind of schema the grammars write.
import type { JsonSchema } from './all.js';
import type { TinyVocabulary } from './tiny-gguf.js';

export interface SchemaTool {
  name: string;
  inputSchema: JsonSchema;
}

/** Strings, numbers, integers, booleans, enums, `const`; required and optional. */
const scalars: SchemaTool[] = [
  {
    name: 'edit',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        count: { type: 'integer' },
        ratio: { type: 'number' },
        force: { type: 'boolean' },
        mode: { type: 'string', enum: ['fast', 'safe', 'dry run'] },
        level: { enum: [1, 2.5, true, null] },
        kind: { const: 'patch' },
      },
      required: ['path', 'count'],
    },
  },
  {
    name: 'note',
    inputSchema: {
      type: 'object',
      properties: { text: { type: 'string' }, refs: { type: 'array', items: { type: 'integer' } } },
      required: ['text'],
    },
  },
  { name: 'ping', inputSchema: { type: 'object', properties: {} } },
];

/** Nested objects, lists of objects and of lists, optional and nullable properties. */
const nested: SchemaTool[] = [
  {
    name: 'write_files',
    inputSchema: {
      type: 'object',
      properties: {
        files: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              path: { type: 'string' },
              content: { type: ['string', 'null'] },
              mode: { type: 'integer' },
            },
            required: ['path'],
          },
        },
        options: {
          type: 'object',
          properties: {
            depth: { type: ['integer', 'null'] },
            dry: { type: 'boolean' },
            label: { type: ['string', 'null'] },
          },
        },
        matrix: { type: 'array', items: { type: 'array', items: { type: 'number' } } },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['files'],
    },
  },
  {
    name: 'configure',
    inputSchema: {
      type: 'object',
      properties: {
        settings: { type: 'object' },
        limits: { type: 'object', additionalProperties: { type: 'integer' } },
        anything: {},
        maybe: { type: ['boolean', 'null'] },
      },
      required: ['settings'],
    },
  },
];

/**
 * Names and values that are hard to write: non-XML property names (optional: the `<tool>`
 * grammar leaves them out), names the protocol uses itself, unicode, markup, entities and
 * CDATA's end in enum values.
 */
const awkward: SchemaTool[] = [
  {
    name: 'tag.it',
    inputSchema: {
      type: 'object',
      properties: {
        'my key': { type: 'string' },
        '-dash': { type: 'integer' },
        ünï: { type: 'string' },
        'a.b': { type: 'string' },
        tool: { type: 'string' },
        arguments: { type: 'string' },
        markup: { type: 'string', enum: ['<b>', '&lt;', 'a&b', ']]>', '"q"', ''] },
      },
      required: ['ünï', 'markup'],
    },
  },
  {
    name: 'search',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string' },
        filters: { type: 'array', items: { type: 'string', enum: ['new', 'old', '[x]'] } },
        tool_name: { type: ['string', 'null'] },
      },
      required: ['query'],
    },
  },
];

export const SCHEMA_SETS: Record<string, SchemaTool[]> = { scalars, nested, awkward };

/** Pieces of any reply: blanks, words, and the literals that a nullable text must not be. */
export const PROSE_PIECES = ['\n', ' ', '  ', '\t', 'the', 'a', 'null', 'true', 'false'];
/** The pieces numbers are written with. */
export const NUMBER_PIECES = ['0', '1', '7', '-', '.', 'e', 'E', '+'];
/** Unicode, and the beginnings of `null` (which a guarded text may start with). */
export const UNICODE_PIECES = ['é', 'ünï', '日本', '😀', 'n', 'nu'];

/** The `<tool>` protocol's pieces and the names and values of every schema set. */
function tagcallPieces(): string[] {
  const pieces = [
    '<tool>',
    '\n<tool>',
    '</tool>',
    '<tool_name>',
    '</tool_name>',
    '<server_name>',
    '</server_name>',
    'local',
    '<arguments>',
    '</arguments>',
    '<![CDATA[',
    ']]>',
    ']]',
    ']',
    '[',
    '&lt;',
    '&gt;',
    '&amp;',
    '&quot;',
    '&apos;',
    '&',
    '<',
    '>',
    ...PROSE_PIECES,
    '{}',
    '{',
    '}',
    '"',
    ':',
    ',',
    ...NUMBER_PIECES,
    '<think>',
    '</think>',
    '```',
    '~~~',
    '[x]',
    '<b>',
    ...UNICODE_PIECES,
  ];
  for (const tools of Object.values(SCHEMA_SETS))
    for (const tool of tools) {
      pieces.push(tool.name);
      const visit = (schema: SchemaTool['inputSchema'] | undefined) => {
        for (const [key, sub] of Object.entries(schema?.properties ?? {})) {
          pieces.push(`<${key}>`, `</${key}>`, key);
          visit(sub);
          visit(sub.items);
        }
        for (const v of schema?.enum ?? []) pieces.push(String(v));
      };
      visit(tool.inputSchema);
    }
  return pieces;
}

/** Closings are preferred, so that strings close and replies end often enough. */
const preference = (piece: string) =>
  piece.startsWith('</') || piece === ']]>' || piece === ']' ? 2.5 : piece.startsWith('<') ? 1 : 0;

/** The tiny model's vocabulary for the `<tool>` grammars. */
export const tagcallVocabulary = (): TinyVocabulary => ({
  pieces: tagcallPieces(),
  preference: (piece) => (piece === '\n<tool>' ? 3 : preference(piece)),
  endPreference: 2,
});
