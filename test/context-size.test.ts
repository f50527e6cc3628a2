/**
 * `tagcall run` reads the server's context size where the server reports it (#28 item 8):
 * vLLM's /v1/models, llama.cpp's /props, Ollama's /api/ps, each answered by a real HTTP server
 * on 127.0.0.1 with the shape those servers document; and the CLI budgets from it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { budgetForContext, readContextSize } from '../src/agent/index.js';
import { listenLocal } from './support/local-server.js';
import { runChild } from './support/run-child.js';

const closers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

type Routes = Record<string, (req: IncomingMessage, res: ServerResponse) => void>;
async function serve(routes: Routes): Promise<string> {
  const server = await listenLocal((req, res) => {
    const route = routes[`${req.method} ${req.url}`];
    if (route === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":"not found"}');
      return;
    }
    route(req, res);
  });
  closers.push(server.close);
  return server.origin;
}
const json = (body: unknown) => (_req: IncomingMessage, res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

describe('readContextSize', () => {
  it('vLLM: max_model_len of the served model, among several', async () => {
    const origin = await serve({
      'GET /v1/models': json({
        object: 'list',
        data: [
          { id: 'other', object: 'model', owned_by: 'vllm', root: 'x', max_model_len: 131072 },
          {
            id: 'qwen',
            object: 'model',
            owned_by: 'vllm',
            root: 'Qwen/Qwen3-8B',
            max_model_len: 8192,
          },
        ],
      }),
    });
    expect(await readContextSize({ baseUrl: `${origin}/v1`, model: 'qwen' })).toEqual({
      tokens: 8192,
      source: 'vLLM: /v1/models max_model_len',
    });
  });

  it('llama.cpp: n_ctx of one slot from /props (its /v1/models holds only the training size)', async () => {
    const origin = await serve({
      'GET /v1/models': json({
        object: 'list',
        data: [{ id: 'model.gguf', object: 'model', meta: { n_ctx_train: 40960 } }],
      }),
      'GET /props': json({
        default_generation_settings: { n_ctx: 4096, params: { temperature: 0.8 } },
        total_slots: 1,
        model_path: 'model.gguf',
        chat_template: '{{ messages }}',
      }),
    });
    expect(await readContextSize({ baseUrl: `${origin}/v1/`, model: 'anything' })).toEqual({
      tokens: 4096,
      source: 'llama.cpp: /props n_ctx',
    });
  });

  it('Ollama: context_length of the loaded model from /api/ps', async () => {
    const origin = await serve({
      'GET /v1/models': json({ object: 'list', data: [{ id: 'qwen2.5:0.5b', object: 'model' }] }),
      'GET /api/ps': json({
        models: [
          { name: 'llama3:8b', model: 'llama3:8b', context_length: 8192 },
          { name: 'qwen2.5:0.5b', model: 'qwen2.5:0.5b', size_vram: 0, context_length: 2048 },
        ],
      }),
    });
    expect(await readContextSize({ baseUrl: `${origin}/v1`, model: 'qwen2.5:0.5b' })).toEqual({
      tokens: 2048,
      source: 'Ollama: /api/ps context_length',
    });
  });

  it('null when nothing says, when a probe hangs, and when a body is too large', async () => {
    const silent = await serve({});
    expect(await readContextSize({ baseUrl: `${silent}/v1`, model: 'm' })).toBeNull();
    const hanging = await serve({ 'GET /props': () => {} });
    expect(
      await readContextSize({ baseUrl: `${hanging}/v1`, model: 'm', timeoutMs: 300 }),
    ).toBeNull();
    const huge = await serve({
      'GET /props': (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"default_generation_settings":{"n_ctx":4096},"pad":"${'x'.repeat(5 << 20)}"}`);
      },
    });
    expect(await readContextSize({ baseUrl: `${huge}/v1`, model: 'm' })).toBeNull();
    expect(await readContextSize({ baseUrl: 'http://127.0.0.1:9/v1', model: 'm' })).toBeNull();
  });

  it('leaves a quarter of the context, up to 8,192 tokens, for the reply', () => {
    expect(budgetForContext(4096)).toBe(3072);
    expect(budgetForContext(131072)).toBe(122880);
  });
});

describe('tagcall run budgets from the reported context', () => {
  const ROOT = fileURLToPath(new URL('..', import.meta.url));

  async function run(extra: string[]) {
    const origin = await serve({
      'GET /props': json({ default_generation_settings: { n_ctx: 4096 } }),
      'POST /v1/chat/completions': (req, res) => {
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          const content =
            '<tool>\n<tool_name>task_completion</tool_name>\n<arguments><result>done</result></arguments>\n</tool>';
          res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content } }] })}\n\n`);
          res.end('data: [DONE]\n\n');
        });
      },
    });
    const workspace = mkdtempSync(join(tmpdir(), 'tagcall-context-'));
    closers.push(async () => rmSync(workspace, { recursive: true, force: true }));
    const {
      status: code,
      stdout,
      stderr,
    } = await runChild(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'src/cli/main.ts'),
        'run',
        'say done',
        '--base-url',
        `${origin}/v1`,
        '--model',
        'm',
        '--workspace',
        workspace,
        ...extra,
      ],
      ROOT,
    );
    return { code, stdout, stderr };
  }

  it('without --budget: the context less the reply’s room, said on stderr', async () => {
    const { code, stdout, stderr } = await run([]);
    expect(code).toBe(0);
    expect(stdout).toBe('done\n');
    expect(stderr).toContain(
      'context: 4096 tokens (llama.cpp: /props n_ctx); the conversation gets 3072 (--budget to choose)',
    );
  });

  it('a --budget above the context: a warning, and the budget as asked', async () => {
    const { code, stderr } = await run(['--budget', '9000']);
    expect(code).toBe(0);
    expect(stderr).toContain(
      "tagcall: warning: --budget 9000 is more than the server's context, 4096 tokens",
    );
    expect(stderr).not.toContain('the conversation gets');
  });
});
