import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEMO_SESSION, readRecordedReplies, replyFiles } from '../src/cli/recorded-replies.js';
import {
  type AgentEvent,
  createOpenAIClient,
  createToolbox,
  defineTool,
  type ReplayModel,
  runAgent,
  startReplayModel,
  toTextProtocol,
  workspaceTools,
} from './support/all.js';
import { cleanupsAfterEach } from './support/cleanups.js';
import { replayRunFlags, runTagcall } from './support/cli-child.js';
import { listenLocal } from './support/local-server.js';

// Write the note, a call without a tool name, the call again, the MCP sum, task_completion
// (with its other answer for when the sum failed).
const replies = await readRecordedReplies(await replyFiles(DEMO_SESSION));
const EVERYTHING = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/server-everything/dist/index.js',
);

const cleanups = cleanupsAfterEach();

async function setup(options: Parameters<typeof startReplayModel>[0], mcp = false) {
  const model: ReplayModel = await startReplayModel(options);
  cleanups.push(() => model.close());
  const workspace = mkdtempSync(join(tmpdir(), 'tagcall-agent-'));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const toolbox = createToolbox({
    tools: workspaceTools(workspace),
    mcpServers: mcp
      ? { everything: { command: process.execPath, args: [EVERYTHING, 'stdio'] } }
      : {},
  });
  cleanups.push(() => toolbox.close());
  const client = createOpenAIClient({ baseUrl: model.url, model: 'replay', backoffMs: 10 });
  const events: AgentEvent[] = [];
  return { model, workspace, toolbox, client, events, onEvent: (e: AgentEvent) => events.push(e) };
}

describe('the full session over real HTTP, SSE, MCP and files', () => {
  it('thinks, writes a file, calls the MCP server, recovers from a malformed call, and completes', async () => {
    const { workspace, toolbox, client, events, onEvent } = await setup({ replies }, true);
    const result = await runAgent({
      model: client,
      toolbox,
      task: 'write the note and check the sum',
      onEvent,
    });
    expect(result).toMatchObject({ status: 'completed', turns: 5 });
    expect(result.answer).toContain('19 + 23 = 42');
    expect(readFileSync(join(workspace, 'notes/parser.md'), 'utf8')).toContain(
      '"</content>" inside code',
    );
    const results = events.flatMap((e) => (e.type === 'tool-result' ? [e.result] : []));
    expect(results.map((r) => [r.toolName, r.isError])).toEqual([
      ['write_to_file', false],
      ['read_file', false],
      ['get-sum', false],
      ['task_completion', false],
    ]);
    expect(results[2].output).toContain('42');
    expect(events.filter((e) => e.type === 'malformed')).toHaveLength(1);
    expect(events.some((e) => e.type === 'argument-delta')).toBe(true);
    // The model saw the parser's error as a tool error before it wrote the call again.
    const seen = toTextProtocol(result.memory.all()).map((m) => m.content);
    expect(
      seen.some((t) => t.startsWith('Tool: tool call\nError: the <tool> block has no <tool_name>')),
    ).toBe(true);
  });
});

describe('a model server that fails', () => {
  it('retries a 500 and goes on', async () => {
    const { model, toolbox, client } = await setup({ replies: [replies[4]], failFirst: 1 });
    const result = await runAgent({ model: client, toolbox, task: 't' });
    expect(result.status).toBe('completed');
    expect(model.requests).toBe(2);
  });

  it('asks again when the connection drops mid-stream, and parses the reply from scratch', async () => {
    const { toolbox, client, events, onEvent } = await setup({
      replies: [replies[4]],
      dropAfterChars: 40,
      delayMs: 5,
    });
    const result = await runAgent({ model: client, toolbox, task: 't', onEvent });
    expect(result.status).toBe('completed');
    expect(events.filter((e) => e.type === 'restart')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'tool-end')).toHaveLength(1);
  });

  // #28 item 2: --timeout-ms was a total-request timeout and a timed-out stream was asked
  // again three times; a refused connection said only "fetch failed".
  it('times out on silence, not on a long stream that keeps coming', async () => {
    const { model, toolbox } = await setup({ replies: [replies[4]], delayMs: 15 });
    const client = createOpenAIClient({ baseUrl: model.url, model: 'replay', timeoutMs: 200 });
    const started = performance.now();
    const result = await runAgent({ model: client, toolbox, task: 't' });
    expect(result.status).toBe('completed');
    // The reply took longer than the timeout, in pieces closer together than it.
    expect(performance.now() - started).toBeGreaterThan(400);
    expect(model.requests).toBe(1);
  });

  it('a server that goes silent mid-stream fails once, not asked again from scratch', async () => {
    let requests = 0;
    const server = await listenLocal((_request, response) => {
      requests++;
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.write(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Working on' } }] })}\n\n`,
      );
    });
    cleanups.push(server.close);
    const client = createOpenAIClient({
      baseUrl: `${server.origin}/v1`,
      model: 'm',
      timeoutMs: 300,
      backoffMs: 10,
    });
    const result = await runAgent({ model: client, toolbox: createToolbox(), task: 't' });
    expect(result.status).toBe('failed');
    expect(result.error).toBe('the model server sent nothing for 300 ms (timeoutMs, --timeout-ms)');
    expect(requests).toBe(1);
  });

  it('honours Retry-After, and says which URL refused the connection', async () => {
    const asked: number[] = [];
    const server = await listenLocal((_request, response) => {
      asked.push(performance.now());
      if (asked.length === 1) {
        response.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
        response.end('{"error": {"message": "slow down"}}');
        return;
      }
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Done.' }, finish_reason: 'stop' }] })}\n\ndata: [DONE]\n\n`,
      );
    });
    cleanups.push(server.close);
    const client = createOpenAIClient({
      baseUrl: `${server.origin}/v1`,
      model: 'm',
      backoffMs: 10,
    });
    const result = await runAgent({ model: client, toolbox: createToolbox(), task: 't' });
    expect(result).toMatchObject({ status: 'no-call', answer: 'Done.' });
    expect(asked[1] - asked[0]).toBeGreaterThan(900);
    await server.close();
    const gone = createOpenAIClient({ baseUrl: `${server.origin}/v1`, model: 'm', backoffMs: 10 });
    const failed = await runAgent({ model: gone, toolbox: createToolbox(), task: 't' });
    expect(failed.error).toBe(
      `nothing listens at ${server.origin}/v1/chat/completions (connection refused): is the model server running?`,
    );
  });

  it('reports a 4xx with the server message and stops', async () => {
    const { toolbox, client } = await setup({ replies: [] });
    const result = await runAgent({ model: client, toolbox, task: 't' });
    expect(result).toMatchObject({ status: 'failed' });
    expect(result.error).toBe('model server answered 400: replay: no recorded reply for turn 1');
  });
});

// #45 item 8: without the everything server, the demo's answer still said it "checked on the
// everything server that 19 + 23 = 42".
describe('the demo session claims only what happened', () => {
  it('without the MCP server, the answer says the sum is not checked', async () => {
    const { toolbox, client, events, onEvent } = await setup({ replies });
    const result = await runAgent({ model: client, toolbox, task: 't', onEvent });
    expect(result.status).toBe('completed');
    const results = events.flatMap((e) => (e.type === 'tool-result' ? [e.result] : []));
    expect(results[2]).toMatchObject({ toolName: 'get-sum', isError: true });
    expect(result.answer).not.toContain('= 42');
    expect(result.answer).toContain(
      '19 + 23 is not checked: the call to the everything server failed',
    );
  });

  it('a recorded reply after an error is chosen by the request, over the OpenAI protocol too', async () => {
    const { model } = await setup({ replies: [{ reply: 'fine', afterError: 'it failed' }] });
    const answer = async (messages: object[]) => {
      const response = await fetch(`${model.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'replay', messages }),
      });
      return ((await response.json()) as { choices: [{ message: { content: string } }] }).choices[0]
        .message.content;
    };
    expect(await answer([{ role: 'user', content: 'go' }])).toBe('fine');
    expect(await answer([{ role: 'user', content: 'Tool: get-sum\nError: no server' }])).toBe(
      'it failed',
    );
    expect(await answer([{ role: 'user', content: 'Tool: get-sum\n42' }])).toBe('fine');
    expect(await answer([{ role: 'tool', tool_call_id: 'c', content: 'Error: no server' }])).toBe(
      'it failed',
    );
  });
});

describe('limits and control', () => {
  it('stops when cancelled mid-stream', async () => {
    const { toolbox, client, onEvent, events } = await setup({ replies, delayMs: 20 });
    const controller = new AbortController();
    const result = await runAgent({
      model: client,
      toolbox,
      task: 't',
      signal: controller.signal,
      onEvent: (e) => {
        onEvent(e);
        if (e.type === 'thinking-start') controller.abort();
      },
    });
    expect(result.status).toBe('cancelled');
    expect(events.some((e) => e.type === 'tool-end')).toBe(false);
  });

  it('stops after maxTurns', async () => {
    const { toolbox, client } = await setup({ replies });
    expect(await runAgent({ model: client, toolbox, task: 't', maxTurns: 2 })).toMatchObject({
      status: 'max-turns',
      turns: 2,
    });
  });

  it('sends a denied call back to the model as a tool error', async () => {
    const { workspace, toolbox, client, events, onEvent } = await setup({
      replies: [replies[0], replies[4]],
    });
    const result = await runAgent({
      model: client,
      toolbox,
      task: 't',
      onEvent,
      hooks: {
        beforeCall: (call) =>
          call.toolName === 'write_to_file'
            ? { approve: false, reason: 'writes need a review' }
            : { approve: true },
      },
    });
    expect(result.status).toBe('completed');
    const denied = events.find(
      (e) => e.type === 'tool-result' && e.call.toolName === 'write_to_file',
    );
    expect(denied).toMatchObject({
      result: { isError: true, output: 'denied: writes need a review' },
    });
    expect(readdirSync(workspace)).toEqual([]);
  });

  // #28 item 6: with only the caller's tools, the model's task_completion had no tool to run.
  it('finishes with only your own tools: task_completion is offered by the agent', async () => {
    const model = await startReplayModel({
      replies: [
        '<tool>\n<tool_name>add</tool_name>\n<arguments><a>19</a><b>23</b></arguments>\n</tool>\n',
        '<tool>\n<tool_name>task_completion</tool_name>\n<arguments><result>42</result></arguments>\n</tool>\n',
      ],
    });
    cleanups.push(() => model.close());
    const add = defineTool({
      name: 'add',
      description: 'Adds two integers.',
      inputSchema: {
        type: 'object',
        properties: { a: { type: 'integer' }, b: { type: 'integer' } },
        required: ['a', 'b'],
      },
      handler: (args) => String(Number(args.a) + Number(args.b)),
    });
    const toolbox = createToolbox({ tools: [add] });
    const client = createOpenAIClient({ baseUrl: model.url, model: 'replay', backoffMs: 10 });
    const result = await runAgent({ model: client, toolbox, task: '19 + 23?' });
    expect(result).toMatchObject({ status: 'completed', answer: '42', turns: 2 });
    const system = model.bodies[0] as { messages: Array<{ content: string }> };
    expect(system.messages[0].content).toContain('task_completion');
    expect((await toolbox.listTools()).map((t) => t.name)).toEqual(['add']);
  });

  // #30 item 5: one reply of many calls dispatched them all.
  it('runs at most maxCallsPerReply calls of one reply and tells the model the rest were not run', async () => {
    const call = (i: number) =>
      `<tool>\n<tool_name>write_to_file</tool_name>\n<arguments>\n<path>f${i}.txt</path>\n<content>${i}</content>\n</arguments>\n</tool>\n`;
    const many = Array.from({ length: 70 }, (_, i) => call(i)).join('');
    const { workspace, toolbox, client, events, onEvent } = await setup({
      replies: [many, replies[4]],
    });
    const result = await runAgent({ model: client, toolbox, task: 't', onEvent });
    expect(result.status).toBe('completed');
    expect(readdirSync(workspace)).toHaveLength(64);
    const results = events.filter(
      (e) => e.type === 'tool-result' && e.call.toolName === 'write_to_file',
    );
    expect(results).toHaveLength(70);
    expect(results.slice(64).map((e) => (e.type === 'tool-result' ? e.result.output : ''))).toEqual(
      Array(6).fill(
        'not run: the reply made 70 calls and at most 64 run per reply (maxCallsPerReply); make the rest in your next reply',
      ),
    );
    const capped = await setup({ replies: [many, replies[4]] });
    await runAgent({
      model: capped.client,
      toolbox: capped.toolbox,
      task: 't',
      maxCallsPerReply: 3,
    });
    expect(readdirSync(capped.workspace)).toHaveLength(3);
  });

  it('ends the run after three malformed replies in a row', async () => {
    const { toolbox, client } = await setup({ replies: [replies[1], replies[1], replies[1]] });
    const result = await runAgent({ model: client, toolbox, task: 't' });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(
      /^3 malformed replies in a row; the last: the <tool> block has no <tool_name>/,
    );
  });

  it('gives beforeRequest a copy: the stored history is untouched', async () => {
    const { toolbox, client } = await setup({ replies: [replies[4]] });
    const result = await runAgent({
      model: client,
      toolbox,
      task: 'original task',
      hooks: {
        beforeRequest: (messages) =>
          messages.map((m) => ({ ...m, content: m.content.replace('original', 'changed') })),
      },
    });
    expect(result.memory.all()[1].parts).toEqual([{ kind: 'text', text: 'original task' }]);
  });
});

describe('workspace tools', () => {
  it('refuse paths that escape the workspace', async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'tagcall-ws-'));
    cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
    const toolbox = createToolbox({ tools: workspaceTools(workspace) });
    const result = await toolbox.dispatch({
      id: 'c',
      serverName: 'local',
      toolName: 'read_file',
      arguments: { path: '../../etc/passwd' },
    });
    expect(result).toMatchObject({
      isError: true,
      output: '"../../etc/passwd" is outside the workspace; use a path relative to it',
    });
  });
});

describe('tagcall run', () => {
  it('documents every option in --help', () => {
    const run = spawnSync(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'run', '--help'],
      {
        cwd: fileURLToPath(new URL('..', import.meta.url)),
        encoding: 'utf8',
      },
    );
    for (const flag of [
      '--base-url',
      '--model',
      '--api-key',
      '--mcp',
      '--tools',
      '--workspace',
      '--max-turns',
      '--thread',
      '--system',
      '--stop-after-tool',
      '--timeout-ms',
      '--json',
    ]) {
      expect(run.stdout).toContain(flag);
    }
  });
});

describe('tagcall run against a model server', () => {
  it('streams the session to stderr, prints the answer on stdout, and persists the thread', async () => {
    const { model, workspace } = await setup({ replies: [replies[0], replies[4]] });
    const {
      status: code,
      stdout,
      stderr,
    } = await runTagcall(
      ['run', 'write the note', ...replayRunFlags(model.url, workspace), '--thread', 't1'],
      workspace,
    );
    expect(code).toBe(0);
    expect(stdout).toBe(
      'Wrote notes/parser.md (two notes on the parser) and checked on the everything server that 19 + 23 = 42.\n',
    );
    expect(stderr).toContain('▶ local/write_to_file');
    expect(stderr).toContain('✓ local/write_to_file');
    const thread = readFileSync(join(workspace, '.tagcall/threads/t1.jsonl'), 'utf8')
      .trim()
      .split('\n');
    expect(thread.map((line) => JSON.parse(line).role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'tool',
    ]);
  });
});

// #28 item 8: a fixed 32,000-token budget and no --dialect for `tagcall run`.
describe('tagcall run --dialect and --budget', () => {
  it('teaches, writes back and reads the family’s own format', async () => {
    const hermes = (name: string, args: Record<string, string>) =>
      `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>\n`;
    const { model, workspace } = await setup({
      replies: [
        hermes('write_to_file', { path: 'a.txt', content: 'x < y & "z"' }),
        hermes('task_completion', { result: 'written' }),
      ],
    });
    // Not spawnSync: the replay model answers from this process.
    const run = await runTagcall(
      [
        'run',
        'write a.txt',
        ...replayRunFlags(model.url, workspace),
        '--dialect',
        'hermes',
        '--budget',
        '8000',
      ],
      workspace,
    );
    expect(run.stderr).not.toContain('tagcall:');
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('written\n');
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('x < y & "z"');
    const [first, second] = model.bodies as Array<{
      messages: Array<{ role: string; content: string }>;
    }>;
    expect(first.messages[0].content).toContain('<tool_call>');
    expect(second.messages.find((m) => m.role === 'assistant')?.content).toContain('<tool_call>');
    const bad = await runTagcall([
      'run',
      't',
      '--base-url',
      model.url,
      '--model',
      'm',
      '--budget',
      '0',
    ]);
    expect(bad.status).toBe(2);
  });
});

// #43 item 3: a call whose body holds text its family cannot read as parameters is no call;
// the model reads the parser's error, as for any malformed call, and writes it again.
describe('a call whose arguments cannot be read', () => {
  const dsml = (name: string, parameters: string) =>
    `<｜DSML｜function_calls>\n<｜DSML｜invoke name="${name}">\n${parameters}</｜DSML｜invoke>\n</｜DSML｜function_calls>`;
  const parameter = (key: string, value: string) =>
    `<｜DSML｜parameter name="${key}" string="true">${value}</｜DSML｜parameter>\n`;

  it('is never run: its error goes back to the model, which writes the call again', async () => {
    const bad = dsml(
      'write_to_file',
      `<parameter name="path">note.txt</｜DSML｜parameter>\n${parameter('content', 'hello')}`,
    );
    const good = dsml(
      'write_to_file',
      parameter('path', 'note.txt') + parameter('content', 'hello'),
    );
    const done = dsml('task_completion', parameter('result', 'written'));
    const { workspace, toolbox, client, events, onEvent } = await setup({
      replies: [`I will write it.\n${bad}`, good, done],
    });
    const result = await runAgent({
      model: client,
      toolbox,
      task: 'write note.txt',
      dialect: 'deepseek-dsml',
      onEvent,
    });
    expect(result.status).toBe('completed');
    const malformed = events.flatMap((e) => (e.type === 'malformed' ? [e] : []));
    expect(malformed.map((e) => e.errors.map((x) => x.code))).toEqual([['unreadable-arguments']]);
    // Only the call written again ran: nothing was written from the first reply's call.
    const results = events.flatMap((e) => (e.type === 'tool-result' ? [e.result] : []));
    expect(results.map((r) => [r.toolName, r.isError])).toEqual([
      ['write_to_file', false],
      ['task_completion', false],
    ]);
    expect(readdirSync(workspace)).toEqual(['note.txt']);
    expect(readFileSync(join(workspace, 'note.txt'), 'utf8')).toBe('hello');
    const seen = toTextProtocol(result.memory.all()).map((m) => m.content);
    expect(
      seen.some(
        (t) =>
          t.startsWith(
            'Tool: tool call\nError: the text inside <｜DSML｜invoke> is not its parameters',
          ) && t.includes('(unreadable-arguments)'),
      ),
    ).toBe(true);
  });
});
