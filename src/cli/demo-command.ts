import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createOpenAIClient, type ReplayModel, startReplayModel } from '../agent/index.js';
import type { McpServerConfig } from '../tools/index.js';
import { defineCommand } from './command.js';
import { counted } from './quantities.js';
import { DEMO_SESSION, readRecordedReplies, replyFiles } from './recorded-replies.js';
import { runSession } from './run-command.js';

const EVERYTHING = '@modelcontextprotocol/server-everything';
export const DEMO_TASK =
  'Write a short note on the parser to notes/parser.md, then check 19 + 23 on the everything server.';

/** The MCP everything server, when it is installed (it is a devDependency of tagcall). */
function everythingServer(): McpServerConfig | null {
  try {
    const main = createRequire(import.meta.url).resolve(`${EVERYTHING}/dist/index.js`);
    return { command: process.execPath, args: [main, 'stdio'] };
  } catch {
    return null;
  }
}

/**
 * The embedded default: a replay model (a real HTTP server on 127.0.0.1 serving recorded
 * replies as SSE), a temporary workspace, the real MCP everything server when it is installed,
 * and a full session. The server and the folder are gone when it returns, however it ends.
 */
export async function runDemo(json: boolean): Promise<number> {
  const log = (text: string) => process.stderr.write(text);
  const replies = await readRecordedReplies(await replyFiles(DEMO_SESSION));
  const everything = everythingServer();
  if (everything === null)
    log(
      `tagcall demo: ${EVERYTHING} is not installed, so the MCP step will fail as a tool error (npm i ${EVERYTHING} to see it work)\n`,
    );
  let model: ReplayModel | undefined;
  let workspace: string | undefined;
  try {
    model = await startReplayModel({ replies, delayMs: 2 });
    workspace = await mkdtemp(join(tmpdir(), 'tagcall-demo-'));
    log(`tagcall demo: replay model at ${model.url}, workspace ${workspace}\ntask: ${DEMO_TASK}\n`);
    const result = await runSession({
      task: DEMO_TASK,
      model: createOpenAIClient({ baseUrl: model.url, model: 'replay' }),
      workspace,
      mcpServers: everything === null ? {} : { everything },
      extraTools: [],
      json,
    });
    log(`\n── ${result.status} after ${counted(result.turns, 'turn')} ──\n`);
    const note = await readFile(join(workspace, 'notes/parser.md'), 'utf8').catch(() => null);
    if (note !== null && !json) log(`notes/parser.md in the workspace:\n${note}`);
    // With --json stdout is NDJSON only: the answer is in the run-end event.
    if (result.answer !== null && !json) process.stdout.write(`${result.answer}\n`);
    return result.status === 'completed' ? 0 : 1;
  } finally {
    await model?.close();
    if (workspace !== undefined) await rm(workspace, { recursive: true, force: true });
  }
}

const USAGE = `Usage: tagcall demo [--json]

Runs a whole session offline: a bundled replay model (an HTTP server on 127.0.0.1 that serves
recorded replies), a temporary workspace and the MCP everything server (when installed). The
session shows on stderr, the answer on stdout. This is what npm start runs.

Options:
  --json                print events as NDJSON on stdout instead of the session view
  -h, --help            this text
`;

export const demoCommand = defineCommand({
  name: 'demo',
  usage: USAGE,
  options: { json: { type: 'boolean' } },
  run: ({ values }) => runDemo(values.json === true),
});
