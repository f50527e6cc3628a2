import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createOpenAIClient, startReplayModel } from '../agent/index.js';
import { runSession } from './run-command.js';

const SESSION = fileURLToPath(new URL('../../fixtures/demo/session/', import.meta.url));
export const DEMO_TASK =
  'Write a short note on the parser to notes/parser.md, then check 19 + 23 on the everything server.';

/**
 * The embedded default: a replay model (a real HTTP server on 127.0.0.1 serving recorded
 * replies as SSE), a temporary workspace, the real MCP everything server, and a full session.
 */
export async function runDemo(json: boolean): Promise<number> {
  const files = (await readdir(SESSION)).filter((f) => f.endsWith('.txt')).sort();
  const replies = await Promise.all(files.map((f) => readFile(join(SESSION, f), 'utf8')));
  const model = await startReplayModel({ replies, delayMs: 2 });
  const workspace = await mkdtemp(join(tmpdir(), 'tagcall-demo-'));
  const everything = createRequire(import.meta.url).resolve(
    '@modelcontextprotocol/server-everything/dist/index.js',
  );
  const log = (text: string) => process.stderr.write(text);
  try {
    log(`tagcall demo: replay model at ${model.url}, workspace ${workspace}\ntask: ${DEMO_TASK}\n`);
    const result = await runSession({
      task: DEMO_TASK,
      model: createOpenAIClient({ baseUrl: model.url, model: 'replay' }),
      workspace,
      mcpServers: { everything: { command: process.execPath, args: [everything, 'stdio'] } },
      extraTools: [],
      json,
    });
    log(`\n── ${result.status} after ${result.turns} turns ──\n`);
    const note = await readFile(join(workspace, 'notes/parser.md'), 'utf8').catch(() => null);
    if (note !== null && !json) log(`notes/parser.md in the workspace:\n${note}`);
    if (result.answer !== null) process.stdout.write(`${result.answer}\n`);
    return result.status === 'completed' ? 0 : 1;
  } finally {
    await model.close();
    await rm(workspace, { recursive: true, force: true });
  }
}
