import fc from 'fast-check';
import type { JsonValue, ToolArguments } from './all.js';

const name = fc.constantFrom(
  'path',
  'content',
  'query',
  'file',
  'files',
  'options',
  'x_1',
  'a.b',
  'ns:tag',
  'données',
);

/** Argument trees XML can say without a schema: no empty objects, lists of two or more. */
export const treeArbitrary = (text: fc.Arbitrary<string>) =>
  fc.letrec<{ tree: ToolArguments; value: JsonValue }>((tie) => ({
    tree: fc.dictionary(name, tie('value'), {
      minKeys: 1,
      maxKeys: 4,
    }) as fc.Arbitrary<ToolArguments>,
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      text,
      tie('tree'),
      fc.array(fc.oneof(text, tie('tree')), { minLength: 2, maxLength: 3 }),
    ),
  })).tree;
