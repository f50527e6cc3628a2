/**
 * `defineTool` types a handler's arguments from the schema written in place (#28 item 6).
 * `tsc --noEmit` in `npm test` checks the types below; the run checks the toolbox hands the
 * handler what the types promise (coerced and validated).
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { ToolArguments } from '../src/protocol/index.js';
import {
  type ArgumentsOf,
  createToolbox,
  defineTool,
  type JsonSchema,
} from '../src/tools/index.js';

describe('defineTool types a handler from its schema', () => {
  it('reads types, required, enum, items and nested objects', async () => {
    let seen: unknown;
    const write = defineTool({
      name: 'write_file',
      description: 'Write a file',
      inputSchema: {
        type: 'object',
        properties: {
          path: { type: 'string' },
          lines: { type: 'integer' },
          mode: { enum: ['create', 'append'] },
          tags: { type: 'array', items: { type: 'string' } },
          owner: {
            type: 'object',
            properties: { name: { type: 'string' }, id: { type: ['number', 'null'] } },
            required: ['name'],
          },
        },
        required: ['path', 'lines'],
      },
      handler(args) {
        expectTypeOf(args.path).toEqualTypeOf<string>();
        expectTypeOf(args.lines).toEqualTypeOf<number>();
        expectTypeOf(args.mode).toEqualTypeOf<'create' | 'append' | undefined>();
        expectTypeOf(args.tags).toEqualTypeOf<string[] | undefined>();
        expectTypeOf(args.owner).toEqualTypeOf<{ name: string; id?: number | null } | undefined>();
        // @ts-expect-error: not a property of the schema
        args.size;
        seen = args;
        return `wrote ${args.path.length + args.lines}`;
      },
    });
    const toolbox = createToolbox({ tools: [write] });
    const result = await toolbox.dispatch({
      id: 'call_0',
      serverName: '',
      toolName: 'write_file',
      arguments: { path: 'a.txt', lines: '3', tags: ['x'] },
    });
    expect(result).toMatchObject({ output: 'wrote 8', isError: false });
    expect(seen).toEqual({ path: 'a.txt', lines: 3, tags: ['x'] });
  });

  it('a schema it cannot read types the arguments as ToolArguments', () => {
    const schema: JsonSchema = { type: 'object' };
    expectTypeOf<ArgumentsOf<typeof schema>>().toEqualTypeOf<ToolArguments>();
    const tool = defineTool({
      name: 'any_args',
      description: 'Anything',
      inputSchema: schema,
      handler(args) {
        expectTypeOf(args).toEqualTypeOf<ToolArguments>();
        return 'ok';
      },
    });
    // Tools of different schemas go in one list.
    const list = [tool, defineTool({ ...tool, name: 'other' })];
    expect(list.map((t) => t.name)).toEqual(['any_args', 'other']);
  });
});
