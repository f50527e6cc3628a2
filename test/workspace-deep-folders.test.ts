import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createToolbox, workspaceTools } from './support/all.js';

/**
 * Every path-taking call of node:fs/promises, counted while `counting.on`: the calls and the
 * path components they name (the kernel walks each component of a path again on every call,
 * so a call per level on the whole path is quadratic work).
 */
const counting = vi.hoisted(() => ({
  on: false,
  calls: 0,
  components: 0,
  mkdirs: 0,
  onMkdir: undefined as (() => Promise<void> | undefined) | undefined,
}));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<Record<string, unknown>>();
  const counted: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(real)) {
    counted[name] =
      typeof value !== 'function' || /^[A-Z]/.test(name)
        ? value
        : (...args: unknown[]) => {
            if (counting.on && typeof args[0] === 'string') {
              counting.calls++;
              counting.components += args[0].split('/').filter(Boolean).length;
              if (name === 'mkdir') {
                counting.mkdirs++;
                const wait = counting.onMkdir?.();
                if (wait !== undefined)
                  return wait.then(() => (value as (...a: unknown[]) => unknown)(...args));
              }
            }
            return (value as (...a: unknown[]) => unknown)(...args);
          };
  }
  return { ...counted, default: counted };
});

const made: string[] = [];
afterEach(async () => {
  counting.on = false;
  counting.onMkdir = undefined;
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function workspace() {
  const dir = await mkdtemp(join(tmpdir(), 'tagcall-deep-'));
  made.push(dir);
  return dir;
}

const writeTool = (dir: string) => {
  const tool = workspaceTools(dir).find((t) => t.name === 'write_to_file');
  if (tool === undefined) throw new Error('no write_to_file');
  return tool;
};

describe('write_to_file into deep folders', () => {
  it('does work linear in the depth (path components named by fs calls, n against 2n levels)', async () => {
    const work = async (levels: number) => {
      const dir = await workspace();
      const path = `${'d/'.repeat(levels)}file.txt`;
      counting.on = true;
      counting.calls = counting.components = 0;
      const report = await createToolbox({ tools: workspaceTools(dir) }).run({
        id: 'c1',
        serverName: 'local',
        toolName: 'write_to_file',
        arguments: { path, content: 'deep' },
      });
      counting.on = false;
      expect(report.result.output).toBe(`wrote 4 bytes to ${path}`);
      expect(existsSync(join(dir, path))).toBe(true);
      return { calls: counting.calls, components: counting.components };
    };
    const small = await work(150);
    const large = await work(300);
    // Linear: about 2x. Each level resolving its whole path again: about 4x.
    expect(large.components / small.components).toBeLessThan(2.6);
    expect(large.calls / small.calls).toBeLessThan(2.6);
  });

  it('stops making folders when its call is aborted (a timeout or the caller)', async () => {
    const dir = await workspace();
    const caller = new AbortController();
    counting.on = true;
    counting.mkdirs = 0;
    counting.onMkdir = () => {
      if (counting.mkdirs === 10) caller.abort();
      return undefined;
    };
    const path = `${'d/'.repeat(200)}file.txt`;
    // The handler itself, awaited to its end: the toolbox's report comes at the abort, while
    // the handler could go on in the background.
    await expect(
      Promise.resolve(writeTool(dir).handler({ path, content: 'x' }, { signal: caller.signal })),
    ).rejects.toThrow();
    counting.on = false;
    expect(counting.mkdirs).toBe(10);
    expect(existsSync(join(dir, 'd/'.repeat(10)))).toBe(true);
    expect(existsSync(join(dir, 'd/'.repeat(11)))).toBe(false);
  });

  it('a timed-out call through the toolbox: no more folders appear after its report', async () => {
    const dir = await workspace();
    counting.on = true;
    counting.mkdirs = 0;
    // The fifth folder takes 100 ms to make: the call's 20 ms timeout fires before it is done.
    counting.onMkdir = () =>
      counting.mkdirs === 5 ? new Promise((resolve) => setTimeout(resolve, 100)) : undefined;
    const toolbox = createToolbox({ tools: workspaceTools(dir), timeoutMs: 20 });
    const report = await toolbox.run({
      id: 'c1',
      serverName: 'local',
      toolName: 'write_to_file',
      arguments: { path: `${'d/'.repeat(300)}f.txt`, content: 'x' },
    });
    expect(report.outcome).toBe('timed-out');
    const after = counting.mkdirs;
    expect(after).toBeLessThanOrEqual(5);
    // Give a handler that went on the time to finish the fifth folder and make more.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(counting.mkdirs).toBe(after);
    expect(existsSync(join(dir, 'd/'.repeat(6)))).toBe(false);
  });
});
