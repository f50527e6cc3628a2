import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  createNativeCalls,
  createToolbox,
  type ParseOptions,
  parse,
  runAgent,
  toTextProtocol,
} from './support/all.js';
import { cpuMs, floodChunks, floodShapes, readFlood } from './support/flood-shapes.js';
import { doublingRatio, HOSTILE_SHAPES } from './support/hostile-shapes.js';

describe('hostile shapes cost linear time (size 2n takes at most 3× size n)', () => {
  for (const [name, make, start] of HOSTILE_SHAPES) {
    it(name, () => {
      const { ratio } = doublingRatio(make, start);
      expect(ratio, `2n/n = ${ratio.toFixed(2)}`).toBeLessThanOrEqual(3);
    });
  }
});

/**
 * #42: `auto` knows every family's openings, and asked each in turn at every chunk: a flood of
 * one special token in 1–4-character chunks cost it 5–13× what the token's own dialect pays.
 * The bench compares it with the slowest dialect of all on larger floods; here, with a wide
 * margin, with the dialects that write the marker (CPU time, the best of a few runs, in turn).
 */
describe("auto on a flood of any family's marker", () => {
  it('costs at most 4× what the dialects that write it cost, on every flood shape', () => {
    const best = (work: () => void) => Math.min(cpuMs(work), cpuMs(work));
    const over: string[] = [];
    for (const { unit, owners } of floodShapes()) {
      const chunks = floodChunks(unit, 8192);
      let ratio = Number.POSITIVE_INFINITY;
      // A busy neighbour only slows a run: a few tries, the least ratio counts.
      for (let attempt = 0; attempt < 4 && ratio > 4; attempt++) {
        const own = Math.max(...owners.map((dialect) => best(() => readFlood(dialect, chunks))));
        ratio = Math.min(ratio, best(() => readFlood('auto', chunks)) / own);
      }
      if (ratio > 4) over.push(`${JSON.stringify(unit)} ${ratio.toFixed(1)}×`);
    }
    expect(over).toEqual([]);
  });
});

describe('JSON nested thousands deep', () => {
  const deep = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
  const bodies: Array<[string, string, ParseOptions]> = [
    [
      'the deprecated JSON form',
      `<tool>{"tool_name": "x", "arguments": {"a": ${deep(5000)}}}</tool>\n`,
      {},
    ],
    [
      'a Hermes body',
      `<tool_call>{"name": "x", "arguments": {"a": ${deep(5000)}}}</tool_call>\n`,
      { dialect: 'hermes' },
    ],
    [
      'a Hermes body whose arguments are a string',
      `<tool_call>{"name": "x", "arguments": ${JSON.stringify(`{"a": ${deep(5000)}}`)}}</tool_call>\n`,
      { dialect: 'hermes' },
    ],
  ];
  for (const [name, text, options] of bodies) {
    it(`${name}: max-depth-exceeded, never a throw`, () => {
      const result = parse(text, options);
      expect(result.calls).toEqual([]);
      expect(result.errors.map((e) => e.code)).toEqual(['max-depth-exceeded']);
    });
  }

  it('within maxDepth it still parses, also when raised far', () => {
    const text = `<tool>{"tool_name": "x", "arguments": {"a": ${deep(3000)}}}</tool>\n`;
    const result = parse(text, { maxDepth: 5000 });
    expect(result.errors).toEqual([]);
    expect(result.calls).toHaveLength(1);
  });

  it('the adapters (AI SDK middleware, tagcall serve) and tagcall parse carry on too', () => {
    const body = `<tool_call>{"name": "x", "arguments": {"a": ${deep(5000)}}}</tool_call>\n`;
    const events: string[] = [];
    const native = createNativeCalls(
      { tools: [{ name: 'x', inputSchema: { type: 'object' } }], parser: { dialect: 'hermes' } },
      (event) => events.push(event.type),
    );
    native.feed(body);
    native.end();
    expect(events).not.toContain('call-end');
    expect(events).toContain('text');
    const cli = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'parse', '--dialect', 'hermes'],
      { cwd: fileURLToPath(new URL('..', import.meta.url)), input: body, encoding: 'utf8' },
    );
    expect(cli.status).toBe(0);
    expect(JSON.parse(cli.stdout).errors[0].code).toBe('max-depth-exceeded');
  });

  it('runAgent gives the model the error instead of failing the run', async () => {
    let turn = 0;
    const replies = [
      `<tool_call>{"name": "x", "arguments": {"a": ${deep(5000)}}}</tool_call>\n`,
      'done, without tools',
    ];
    const result = await runAgent({
      model: {
        async *stream() {
          yield { type: 'text' as const, text: replies[turn++] };
        },
      },
      toolbox: createToolbox(),
      task: 't',
      parse: { dialect: 'hermes' },
    });
    expect(result.status).toBe('no-call');
    const seen = toTextProtocol(result.memory.all()).map((m) => m.content);
    expect(
      seen.some(
        (t) => t.startsWith('Tool: tool call\nError: ') && t.includes('max-depth-exceeded'),
      ),
    ).toBe(true);
  });
});
