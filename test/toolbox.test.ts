import { describe, expect, it } from 'vitest';
import {
  createToolbox,
  defineTool,
  parse,
  renderToolPrompt,
  toolPromptFor,
} from './support/all.js';
import { gcChildOutput } from './support/gc-child.js';

const add = defineTool({
  name: 'add',
  description: 'Adds two numbers.',
  inputSchema: {
    type: 'object',
    properties: { a: { type: 'number' }, b: { type: 'number' } },
    required: ['a', 'b'],
    additionalProperties: false,
  },
  handler: (args) => String((args.a as number) + (args.b as number)),
});
const sleep = defineTool({
  name: 'sleep',
  description: 'Waits.',
  inputSchema: { type: 'object', properties: { ms: { type: 'integer' } } },
  handler: (args, { signal }) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => resolve(`slept ${args.ms}`), args.ms as number);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(new Error('aborted'));
      });
    }),
});
const broken = defineTool({
  name: 'broken',
  description: 'Throws.',
  inputSchema: { type: 'object' },
  handler: () => {
    throw new Error('disk on fire');
  },
});

const call = (text: string) => parse(text).calls[0];
const toolbox = createToolbox({ tools: [add, sleep, broken] });

describe('local dispatch', () => {
  it('coerces XML text by the schema, then runs the handler', async () => {
    const result = await toolbox.dispatch(
      call(
        '<tool>\n<tool_name>add</tool_name>\n<arguments><a>2</a><b> 40 </b></arguments>\n</tool>\n',
      ),
    );
    expect(result).toEqual({
      kind: 'tool-result',
      callId: 'call_0',
      toolName: 'add',
      output: '42',
      isError: false,
    });
  });

  it('returns validation failures as an error the model can act on', async () => {
    const result = await toolbox.dispatch(
      call(
        '<tool>\n<tool_name>add</tool_name>\n<arguments><a>two</a><c>1</c></arguments>\n</tool>\n',
      ),
    );
    expect(result.isError).toBe(true);
    expect(result.output).toBe(
      'invalid arguments for add: <b> is required but missing; <c> is not an argument of this tool; <a> must be number, got "two". Fix them and call the tool again.',
    );
  });

  it('answers an unknown tool with the list of tools', async () => {
    const result = await toolbox.dispatch({
      id: 'x',
      serverName: 'local',
      toolName: 'nope',
      arguments: {},
    });
    expect(result).toMatchObject({
      isError: true,
      output: 'there is no tool "nope"; the tools are: add, sleep, broken',
    });
  });

  it('answers an unknown server', async () => {
    const result = await toolbox.dispatch({
      id: 'x',
      serverName: 'github',
      toolName: 'search',
      arguments: {},
    });
    expect(result).toMatchObject({
      isError: true,
      output: 'there is no server named "github"; use one of: local',
    });
  });

  it('turns a throwing handler, a timeout and a cancellation into tool errors', async () => {
    expect(
      await toolbox.dispatch({ id: 'x', serverName: 'local', toolName: 'broken', arguments: {} }),
    ).toMatchObject({
      isError: true,
      output: 'broken failed: disk on fire',
    });
    const slow = { id: 'x', serverName: 'local', toolName: 'sleep', arguments: { ms: '5000' } };
    expect(await toolbox.dispatch(slow, { timeoutMs: 50 })).toMatchObject({
      isError: true,
      output: 'sleep timed out after 50 ms',
    });
    const controller = new AbortController();
    const pending = toolbox.dispatch(slow, { signal: controller.signal });
    controller.abort();
    expect(await pending).toMatchObject({ isError: true, output: 'sleep was cancelled' });
  });

  it('runs one message’s calls concurrently and keeps results in call order', async () => {
    const calls = [300, 10, 150].map((ms, i) => ({
      id: `c${i}`,
      serverName: 'local',
      toolName: 'sleep',
      arguments: { ms: String(ms) },
    }));
    const results = await createToolbox({ tools: [sleep], concurrency: 3 }).dispatchAll(calls);
    expect(results.map((r) => r.output)).toEqual(['slept 300', 'slept 10', 'slept 150']);
  });
});

describe('a settled call', () => {
  it('leaves nothing behind while its timeout is pending (n against 2n calls, one long-lived signal)', () => {
    const held = (calls: number) =>
      Number(gcChildOutput('./retained-by-dispatch.ts', [String(calls)]));
    // Each call returns 64 KiB: 200 more calls kept alive would be 12.5 MiB more.
    expect(held(400) - held(200)).toBeLessThan(4);
  });
});

describe('renderToolPrompt', () => {
  it('lists every tool with its parameters and an example call the parser reads back', async () => {
    const prompt = await renderToolPrompt(createToolbox({ tools: [add] }));
    expect(prompt).toContain('## add (server: local)');
    expect(prompt).toContain('  - a (number, required)');
    // The rule about task_completion only when that tool is offered.
    expect(prompt).not.toContain('task_completion');
    expect(
      toolPromptFor([{ serverName: 'local', name: 'task_completion', inputSchema: {} }]),
    ).toContain('call task_completion with the answer');
    const example = prompt.slice(prompt.indexOf('Example:'));
    expect(parse(example).calls).toMatchObject([
      { toolName: 'add', arguments: { a: '1', b: '1' } },
    ]);
  });
});
