import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  type AgentEvent,
  type AuditEntry,
  callsOf,
  createAuditLog,
  createJsonlStore,
  createMemory,
  createToolbox,
  defineTool,
  loadMemory,
  type Message,
  type ModelClient,
  type ModelDelta,
  runAgent,
  startReplayModel,
  type ToolCallPart,
  taskCompletionTool,
  toJsonText,
} from './support/all.js';
import { cleanupsAfterEach } from './support/cleanups.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const run = promisify(execFile);

const cleanups = cleanupsAfterEach();
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-record-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
};

const call = (tool: string, args = '') =>
  `<tool>\n<tool_name>${tool}</tool_name>\n<arguments>${args}</arguments>\n</tool>\n`;

/** A model that answers turn N with `replies[N]`, in one delta, then the given finish reason. */
function scripted(replies: string[], finish = 'stop'): ModelClient {
  let turn = 0;
  return {
    async *stream(): AsyncIterable<ModelDelta> {
      yield { type: 'text', text: replies[turn++] ?? 'nothing more' };
      yield { type: 'finish', reason: finish };
    },
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const tools = [
  defineTool({
    name: 'fast',
    description: 'answers at once',
    inputSchema: { type: 'object', properties: {} },
    handler: () => 'quick',
  }),
  defineTool({
    name: 'slow',
    description: 'takes its time',
    inputSchema: { type: 'object', properties: {} },
    handler: async () => {
      await sleep(300);
      return 'done slowly';
    },
  }),
  defineTool({
    name: 'count',
    description: 'needs a number',
    inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] },
    handler: (args) => String(args.n),
  }),
  taskCompletionTool,
];

const REPLIES = [
  `Running all of them.\n${call('fast')}${call('slow')}${call('rm', '<path>/</path>')}${call('count', '<n>many</n>')}${call('nope')}`,
  call('task_completion', '<result>all done</result>'),
];

async function session(options: { audit?: ReturnType<typeof createAuditLog>; dir?: string }) {
  const toolbox = createToolbox({ tools });
  cleanups.push(() => toolbox.close());
  const memory =
    options.dir === undefined
      ? createMemory({ budget: 32_000 })
      : (
          await loadMemory({
            store: createJsonlStore({ dir: options.dir }),
            threadId: 't',
            budget: 32_000,
          })
        ).memory;
  const events: AgentEvent[] = [];
  const result = await runAgent({
    model: scripted(REPLIES),
    toolbox,
    task: 'run the tools',
    memory,
    audit: options.audit,
    onEvent: (e) => events.push(e),
    hooks: {
      beforeCall: (c) =>
        c.toolName === 'rm' ? { approve: false, reason: 'rm is not allowed' } : { approve: true },
    },
  });
  return { result, events };
}

const firstReply = (messages: readonly Message[]) =>
  messages.find((m) => m.role === 'assistant') as Message;

describe('per-call timings', () => {
  it("each call has its own start, end and duration, not its batch's; a denied call too", async () => {
    const { result, events } = await session({});
    const calls = callsOf(firstReply(result.memory.all()));
    const byName = Object.fromEntries(calls.map((c) => [c.toolName, c]));
    // The calls run at once: a batch's timing would give fast the slow one's 300 ms. A lower
    // bound only, since a busy machine can stretch any call (fast once took 256 ms).
    expect(byName.slow.durationMs).toBeGreaterThanOrEqual(290);
    expect(byName.fast.durationMs).toBeLessThan(byName.slow.durationMs as number);
    expect(Date.parse(byName.fast.endedAt as string)).toBeLessThanOrEqual(
      Date.parse(byName.slow.endedAt as string),
    );
    for (const c of calls) {
      expect(c.startedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
      expect(Date.parse(c.endedAt as string)).toBeGreaterThanOrEqual(
        Date.parse(c.startedAt as string),
      );
      expect(c.durationMs).toBeGreaterThanOrEqual(0);
    }
    expect(byName.rm).toMatchObject({ status: 'failed' });
    const reported = events.flatMap((e) =>
      e.type === 'tool-result' ? [[e.call.toolName, e.durationMs]] : [],
    );
    expect(Object.fromEntries(reported)).toEqual(
      expect.objectContaining({ fast: byName.fast.durationMs, slow: byName.slow.durationMs }),
    );
  });
});

describe('the audit log records every turn', () => {
  it('the task, what the model was asked and answered, each call with its decision, and the end', async () => {
    const audit = createAuditLog();
    const { result } = await session({ audit });
    const entries = audit.entries();
    expect(entries.map((e) => e.decision?.type)).toEqual([
      'task',
      'model_reply',
      'tool_call_completed',
      'tool_call_completed',
      'tool_call_denied',
      'tool_call_invalid',
      'tool_call_unknown',
      'model_reply',
      'tool_call_completed',
      'run_ended',
    ]);
    const reply = entries[1];
    const window = result.memory.all().slice(0, 2);
    expect(reply.decision?.details).toMatchObject({
      turn: 1,
      asked: { messageIds: window.map((m) => m.id) },
      finishReason: 'tool-calls',
      calls: 5,
    });
    expect(reply.decision?.details).toMatchObject({ asked: { tokens: expect.any(Number) } });
    expect(JSON.stringify(reply.decision?.details)).not.toContain('"tokens":0');
    // The reply is recorded with its calls settled.
    expect(callsOf(reply.message as Message).map((c) => c.status)).toEqual([
      'completed',
      'completed',
      'failed',
      'failed',
      'failed',
    ]);
    expect(entries[4].decision).toMatchObject({
      callId: expect.any(String),
      reason: 'rm is not allowed',
      details: { toolName: 'rm', outcome: 'denied' },
    });
    expect(entries[5].message?.parts[0]).toMatchObject({ kind: 'tool-result', isError: true });
    expect(entries[3].decision?.durationMs).toBeGreaterThanOrEqual(290);
    expect(entries.at(-1)).toMatchObject({
      decision: {
        type: 'run_ended',
        reason: 'the model called task_completion',
        details: { status: 'completed', turns: 2, answer: 'all done' },
      },
    });
    expect(entries.at(-1)).not.toHaveProperty('message');
  });

  it('a malformed reply is recorded as such, with the feedback the model got', async () => {
    const audit = createAuditLog();
    const toolbox = createToolbox({ tools });
    await runAgent({
      model: scripted(['<tool>\n<arguments></arguments>\n</tool>\n', call('task_completion')]),
      toolbox,
      task: 't',
      audit,
    });
    const types = audit.entries().map((e) => e.decision?.type);
    expect(types.slice(0, 3)).toEqual(['task', 'malformed_reply', 'malformed_feedback']);
    expect(audit.entries()[1].decision?.details).toMatchObject({
      errors: [{ code: 'missing-tool-name' }],
    });
  });
});

describe('finish reasons', () => {
  it("sets each reply's finishReason from the model's, tool-calls when it called", async () => {
    const toolbox = createToolbox({ tools });
    const result = await runAgent({
      model: scripted(['Just text.'], 'length'),
      toolbox,
      task: 't',
    });
    expect(result.status).toBe('no-call');
    expect(result.memory.all().at(-1)?.finishReason).toBe('length');
    const { result: called } = await session({});
    expect(firstReply(called.memory.all()).finishReason).toBe('tool-calls');
  });
});

describe('the store holds the final state', () => {
  it('a reloaded thread has every call as it ended, not pending', async () => {
    const dir = tempDir();
    const { result } = await session({ dir });
    const reloaded = await createJsonlStore({ dir }).load('t');
    expect(reloaded.damaged).toEqual([]);
    expect(JSON.parse(toJsonText(reloaded.messages))).toEqual(
      JSON.parse(toJsonText(result.memory.all())),
    );
    const statuses = reloaded.messages.flatMap((m) =>
      m.parts.flatMap((p) => (p.kind === 'tool-call' ? [(p as ToolCallPart).status] : [])),
    );
    expect(statuses).not.toContain('pending');
    expect(statuses).toContain('completed');
  });
});

describe('tagcall run --audit, read back by tagcall stats', () => {
  it('writes one JSONL entry per record; stats counts the same calls and timings', async () => {
    const replies = [
      `${call('write_to_file', '<path>a.txt</path><content>x &amp; y</content>')}${call('list_files', '<path>.</path>')}`,
      call('read_file', '<path>a.txt</path>'),
      call('task_completion', '<result>ok</result>'),
    ];
    const model = await startReplayModel({ replies });
    cleanups.push(() => model.close());
    const dir = tempDir();
    const auditFile = join(dir, 'audit.jsonl');
    const cli = ['--import', 'tsx', 'src/cli/main.ts'];
    const env = { ...process.env, NO_COLOR: '1' };
    const { stdout } = await run(
      process.execPath,
      [
        ...cli,
        'run',
        'write a note',
        '--base-url',
        model.url,
        '--model',
        'replay',
        '--workspace',
        dir,
        '--audit',
        auditFile,
      ],
      { cwd: ROOT, env },
    );
    expect(stdout).toBe('ok\n');
    expect(readFileSync(join(dir, 'a.txt'), 'utf8')).toBe('x & y');
    const entries = readFileSync(auditFile, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as AuditEntry);
    const recordedCalls = entries.flatMap((e) =>
      e.message?.role === 'assistant' ? callsOf(e.message) : [],
    );
    expect(recordedCalls.map((c) => c.toolName)).toEqual([
      'write_to_file',
      'list_files',
      'read_file',
      'task_completion',
    ]);
    expect(entries.at(-1)?.decision?.type).toBe('run_ended');

    const stats = await run(process.execPath, [...cli, 'stats', auditFile, '--json'], {
      cwd: ROOT,
      env,
    });
    const counted = JSON.parse(stats.stdout);
    expect(counted.calls).toBe(4);
    expect(counted.byTool).toEqual({
      write_to_file: 1,
      list_files: 1,
      read_file: 1,
      task_completion: 1,
    });
    expect(counted.byFormat).toEqual({ structured: 4 });
    const slowest = counted.slowest as Array<{ toolName: string; durationMs: number }>;
    const timed = Object.fromEntries(recordedCalls.map((c) => [c.toolName, c.durationMs]));
    expect(slowest).toHaveLength(4);
    for (const s of slowest) expect(s.durationMs).toBe(timed[s.toolName]);
  });

  it('says why it stopped at --max-turns, and --json ends with a run-end event', async () => {
    const model = await startReplayModel({
      replies: [call('list_files', '<path>.</path>'), call('list_files', '<path>.</path>')],
    });
    cleanups.push(() => model.close());
    const dir = tempDir();
    const base = [
      '--import',
      'tsx',
      'src/cli/main.ts',
      'run',
      'look around',
      '--base-url',
      model.url,
      '--model',
      'replay',
      '--workspace',
      dir,
      '--max-turns',
      '1',
    ];
    const plain = await run(process.execPath, base, { cwd: ROOT }).catch((e) => e);
    expect(plain.code).toBe(1);
    expect(plain.stderr).toContain('tagcall: stopped after turn 1 (maxTurns)');
    const json = await run(process.execPath, [...base, '--json'], { cwd: ROOT }).catch((e) => e);
    const events = (json.stdout as string)
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.at(-1)).toMatchObject({ type: 'run-end', status: 'max-turns', turns: 1 });
    expect(readdirSync(dir)).toEqual([]);
  });
});
