import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ReplayModel, startReplayModel } from './support/all.js';
import { cleanupsAfterEach } from './support/cleanups.js';
import { replayRunFlags, runTagcall } from './support/cli-child.js';

// #44 item 2: `tagcall run --stop-after-tool` failed every run with a call ("This operation
// was aborted"), and cut at the first `</tool>` in the raw text, even one inside CDATA.

/** A file that documents the protocol: its `</tool>` is content, not the call's end. */
const DOC = 'Close a call with </tool> on a line of its own.\n</tool>\n';

const cleanups = cleanupsAfterEach();

/** A line of `tagcall run --json`, as far as these tests read it. */
type RunEvent = { type: string; call?: { toolName: string } };

async function runWith(replies: string[], dialect: string) {
  const model: ReplayModel = await startReplayModel({ replies });
  cleanups.push(() => model.close());
  const workspace = mkdtempSync(join(tmpdir(), 'tagcall-stop-'));
  cleanups.push(() => rmSync(workspace, { recursive: true, force: true }));
  const run = await runTagcall(
    [
      'run',
      'document the protocol',
      ...replayRunFlags(model.url, workspace),
      '--dialect',
      dialect,
      '--stop-after-tool',
      '--json',
    ],
    workspace,
  );
  const events = run.stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RunEvent);
  return { run, events, workspace, model };
}

/** The run ran the write, then the completion, and ended completed with the answer `written`. */
function expectWroteThenCompleted(events: RunEvent[]) {
  const ran = events.filter((e) => e.type === 'tool-running').map((e) => e.call?.toolName);
  expect(ran).toEqual(['write_to_file', 'task_completion']);
  expect(events.at(-1)).toMatchObject({
    type: 'run-end',
    status: 'completed',
    answer: 'written',
  });
}

describe('tagcall run --stop-after-tool', () => {
  it('cuts where the parser read the call end, not at a </tool> inside CDATA, and ends cleanly', async () => {
    const write = `I will write it.\n<tool>\n<server_name>local</server_name>\n<tool_name>write_to_file</tool_name>\n<arguments>\n<path>protocol.md</path>\n<content><![CDATA[${DOC}]]></content>\n</arguments>\n</tool>\n`;
    // What the model imagines after its call: a result and a completion it must not get to.
    const ramble =
      'Tool: write_to_file\nWrote it.\n<tool>\n<server_name>local</server_name>\n<tool_name>task_completion</tool_name>\n<arguments><result>imagined</result></arguments>\n</tool>\n';
    const done =
      '<tool>\n<server_name>local</server_name>\n<tool_name>task_completion</tool_name>\n<arguments><result>written</result></arguments>\n</tool>';
    const { run, events, workspace, model } = await runWith([write + ramble, done], 'tagcall');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(readFileSync(join(workspace, 'protocol.md'), 'utf8')).toBe(DOC);
    expectWroteThenCompleted(events);
    // The second request carried the reply as cut: the call, not what the model wrote after it.
    const sent = model.bodies[1] as { messages: Array<{ role: string; content: string }> };
    const reply = sent.messages.filter((m) => m.role === 'assistant').at(-1)?.content ?? '';
    expect(reply).toContain(DOC.trim());
    expect(reply).not.toContain('imagined');
  });

  it('cuts a Hermes call where its </tool_call> ends it', async () => {
    const write =
      '<tool_call>\n{"name": "write_to_file", "arguments": {"path": "a.txt", "content": "one </tool_call> two"}}\n</tool_call>\n';
    const ramble =
      '<tool_call>\n{"name": "task_completion", "arguments": {"result": "imagined"}}\n</tool_call>';
    const done =
      '<tool_call>\n{"name": "task_completion", "arguments": {"result": "written"}}\n</tool_call>';
    const { run, events, workspace } = await runWith([write + ramble, done], 'hermes');
    expect(run.status).toBe(0);
    expect(readFileSync(join(workspace, 'a.txt'), 'utf8')).toBe('one </tool_call> two');
    expectWroteThenCompleted(events);
  });
});
