// Checks the generated grammars against llama.cpp's own grammar engine, through node-llama-cpp
// (a devDependency with only its Linux x64 CPU binary: package.json's overrides replace the
// other platforms' and the GPU builds with an empty package; see docs/grammars.md, "Checked
// against llama.cpp's own grammar engine"). Elsewhere there is no binary to load, and this file
// is skipped.
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  buildToolGrammar,
  llamaCppGrammarFields,
  printGbnf,
  renderCall,
  type ToolArguments,
  type ToolLike,
} from './support/all.js';

const llamaLogs: string[] = [];

/** The part of node-llama-cpp used here; `_testText` is its grammar engine's whole-text check. */
interface LlamaCppGrammar {
  _testText(text: string): boolean;
}
interface Llama {
  createGrammar(options: { grammar: string }): Promise<LlamaCppGrammar>;
}

const installed = (() => {
  if (process.platform !== 'linux' || process.arch !== 'x64') return false;
  try {
    createRequire(import.meta.url).resolve('node-llama-cpp');
    return true;
  } catch {
    return false;
  }
})();

const tools: ToolLike[] = [
  {
    serverName: 'local',
    name: 'edit',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string' },
        count: { type: 'integer' },
        force: { type: 'boolean' },
        tags: { type: 'array', items: { type: 'string' } },
      },
      required: ['path', 'count'],
    },
  },
];

const validArgs = fc.record(
  {
    path: fc.string({ maxLength: 30 }),
    count: fc.integer({ min: -1000, max: 1000 }),
    force: fc.boolean(),
    // A list of one item is written as that one element, which the parser reads differently
    // with and without schemas when it is empty, blank at an edge, or `null`/JSON-like (`<tags>
    // </tags>`: [""] with schemas, [] by coercion): the grammar leaves such a lone item out, so
    // a model cannot write a call that two readers take two ways. Two or more items are free.
    tags: fc
      .array(fc.string({ maxLength: 8 }), { minLength: 1, maxLength: 3 })
      .filter((tags) => tags.length > 1 || /^[^\s[{n](?:.*\S)?$/s.test(tags[0])),
  },
  { requiredKeys: ['path', 'count'] },
);

describe.skipIf(!installed)('generated grammars in llama.cpp (node-llama-cpp)', () => {
  const llama = async (): Promise<Llama> => {
    const { getLlama } = await import('node-llama-cpp');
    // llama.cpp's logs (its grammar parser's complaints about the broken grammars this file
    // feeds it on purpose) are kept here instead of printed, so a green run reads clean.
    return (await getLlama({
      gpu: false,
      build: 'never',
      logger: (_level, message) => llamaLogs.push(message),
    })) as unknown as Llama;
  };

  it('loads every checked-in example', async () => {
    const engine = await llama();
    for (const file of ['demo-toolbox.gbnf', 'everything.gbnf']) {
      const text = await readFile(new URL(`../grammar/examples/${file}`, import.meta.url), 'utf8');
      await expect(engine.createGrammar({ grammar: text })).resolves.toBeDefined();
    }
  });

  it('refuses a broken grammar (in a child process: llama.cpp prints its complaint to fd 2)', () => {
    const child = spawnSync(
      process.execPath,
      [fileURLToPath(new URL('./support/llama-broken-grammar.mjs', import.meta.url))],
      { encoding: 'utf8' },
    );
    expect(child.stdout.trim()).toBe('refused');
    expect(child.stderr).toContain('error parsing grammar');
  });

  it('accepts canonical renderings of valid calls and rejects invalid ones', async () => {
    const engine = await llama();
    const whole = await engine.createGrammar({ grammar: printGbnf(buildToolGrammar(tools)) });
    const lazy = await engine.createGrammar({ grammar: llamaCppGrammarFields(tools).grammar });
    fc.assert(
      fc.property(validArgs, (args) => {
        const call = renderCall({ toolName: 'edit', arguments: args as ToolArguments });
        const reply = `Editing.\n${call}\nDone.`;
        expect(whole._testText(reply)).toBe(true);
        expect(lazy._testText(reply.slice(reply.indexOf('<tool>')))).toBe(true);
      }),
      { numRuns: 200 },
    );
    const bad = [
      renderCall({ toolName: 'delete', arguments: { path: 'a', count: 1 } as ToolArguments }),
      renderCall({ toolName: 'edit', arguments: { path: 'a' } as ToolArguments }),
      renderCall({ toolName: 'edit', arguments: { path: 'a', count: 1, x: 2 } as ToolArguments }),
      renderCall({ toolName: 'edit', arguments: { path: 'a', count: 'two' } as ToolArguments }),
    ];
    for (const text of bad) {
      expect(whole._testText(text)).toBe(false);
      expect(lazy._testText(text)).toBe(false);
    }
  });
});
