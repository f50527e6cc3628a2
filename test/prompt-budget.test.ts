import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import { describe, expect, it } from 'vitest';
import {
  createMemory,
  createOpenAIClient,
  createToolbox,
  PromptOverBudgetError,
  type ReplayModel,
  runAgent,
  startProxy,
  startReplayModel,
  workspaceTools,
} from './support/all.js';
import { cleanupsAfterEach } from './support/cleanups.js';
import { runChild } from './support/run-child.js';

const cleanups = cleanupsAfterEach();

const DONE =
  '<tool>\n<tool_name>task_completion</tool_name>\n<arguments><result>done</result></arguments>\n</tool>';

async function replay(): Promise<ReplayModel> {
  const model = await startReplayModel({ replies: [DONE, DONE] });
  cleanups.push(() => model.close());
  return model;
}

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-budget-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

describe('a tool prompt that leaves no room for the task is refused before the run', () => {
  it('runAgent throws PromptOverBudgetError with the numbers; nothing is sent or stored', async () => {
    const model = await replay();
    const toolbox = createToolbox({ tools: workspaceTools(workspace()) });
    cleanups.push(() => toolbox.close());
    const memory = createMemory({ budget: 300 });
    const run = runAgent({
      model: createOpenAIClient({ baseUrl: model.url, model: 'replay' }),
      toolbox,
      task: 'write the notes',
      memory,
    });
    await expect(run).rejects.toBeInstanceOf(PromptOverBudgetError);
    const error = (await run.catch((e: unknown) => e)) as PromptOverBudgetError;
    expect(error.budget).toBe(300);
    expect(error.toolPromptTokens).toBeGreaterThan(300);
    expect(error.taskTokens).toBeGreaterThan(0);
    expect(error.message).toContain(`the tool prompt is ${error.toolPromptTokens} tokens`);
    expect(error.message).toContain('more than the budget of 300 tokens');
    expect(model.requests).toBe(0);
    expect(memory.all()).toEqual([]);
  });

  it('a budget that holds the prompt and the task runs as before', async () => {
    const model = await replay();
    const toolbox = createToolbox({ tools: workspaceTools(workspace()) });
    cleanups.push(() => toolbox.close());
    const result = await runAgent({
      model: createOpenAIClient({ baseUrl: model.url, model: 'replay' }),
      toolbox,
      task: 'write the notes',
      memory: createMemory({ budget: 4000 }),
    });
    expect(result.status).toBe('completed');
  });

  it('tagcall run --budget 600: exit 2, the numbers and what to change', async () => {
    const model = await replay();
    const root = fileURLToPath(new URL('..', import.meta.url));
    const run = await runChild(
      process.execPath,
      [
        '--import',
        'tsx',
        join(root, 'src/cli/main.ts'),
        'run',
        'write the notes',
        '--base-url',
        model.url,
        '--model',
        'replay',
        '--workspace',
        workspace(),
        '--budget',
        '600',
      ],
      root,
    );
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^tagcall: the tool prompt is \d+ tokens and the task \d+: together more than the budget of 600 tokens, so the model would never see the task\. Give a larger budget \(--budget, or a larger context on the model server\), fewer tools/m,
    );
    // Asked for its context size, never for a reply.
    expect(model.bodies).toEqual([]);
  });

  it('tagcall serve with a budget: 400 through the openai client, naming "tools"', async () => {
    const model = await replay();
    const proxy = await startProxy({ upstream: model.url, budget: 400, onError: () => {} });
    cleanups.push(() => proxy.close());
    const client = new OpenAI({ baseURL: proxy.url, apiKey: 'none', maxRetries: 0 });
    const tools = workspaceTools('.').map((t) => ({
      type: 'function' as const,
      function: { name: t.name, description: t.description, parameters: t.inputSchema },
    }));
    const error = await client.chat.completions
      .create({ model: 'm', messages: [{ role: 'user', content: 'write the notes' }], tools })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.message).toMatch(
      /"tools": the tool prompt is \d+ tokens, more than the budget of 400 tokens \(tagcall serve --budget\)/,
    );
    expect(bad.param).toBe('tools');
    expect(model.requests).toBe(0);
    // One tool fits: the request goes upstream.
    const answer = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'done?' }],
      tools: [{ type: 'function', function: { name: 'ok', parameters: { type: 'object' } } }],
    });
    expect(answer.choices).toHaveLength(1);
    expect(model.bodies).toHaveLength(1);
  });
});
