import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createToolbox, type ToolArguments, workspaceTools } from './support/all.js';

let base: string;
let workspace: string;
let outside: string;
beforeEach(() => {
  base = mkdtempSync(join(tmpdir(), 'tagcall-ws-'));
  workspace = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(workspace);
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'API_KEY=hunter2');
  writeFileSync(join(workspace, 'inside.txt'), 'hello');
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

function tools(options?: Parameters<typeof workspaceTools>[1]) {
  const toolbox = createToolbox({ tools: workspaceTools(workspace, options) });
  return (toolName: string, args: ToolArguments) =>
    toolbox.dispatch({ id: 'c', serverName: 'local', toolName, arguments: args });
}

describe('workspace tools resolve real paths: no link leads outside', () => {
  it('refuses to read through a link to an outside file, folder or /proc', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'file-link'));
    symlinkSync(outside, join(workspace, 'dir-link'));
    symlinkSync('/proc/self/environ', join(workspace, 'environ'));
    const call = tools();
    for (const path of ['file-link', 'dir-link/secret.txt', 'environ']) {
      const result = await call('read_file', { path });
      expect(result.isError, path).toBe(true);
      expect(result.output).toContain('outside the workspace');
      expect(result.output).not.toContain('hunter2');
    }
  });

  it('refuses to write through a link to an outside file or folder, or a dangling one', async () => {
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'file-link'));
    symlinkSync(outside, join(workspace, 'dir-link'));
    symlinkSync(join(outside, 'not-yet.txt'), join(workspace, 'dangling'));
    symlinkSync(join(outside, 'no-dir'), join(workspace, 'dangling-dir'));
    const call = tools();
    for (const path of [
      'file-link',
      'dir-link/new.txt',
      'dir-link/deeper/new.txt',
      'dangling',
      'dangling-dir/new.txt',
    ]) {
      const result = await call('write_to_file', { path, content: 'pwned' });
      expect(result.isError, path).toBe(true);
    }
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('API_KEY=hunter2');
    expect(readdirSync(outside)).toEqual(['secret.txt']);
  });

  it('refuses to list or search a linked outside folder, and never follows links while searching', async () => {
    symlinkSync(outside, join(workspace, 'dir-link'));
    symlinkSync(join(outside, 'secret.txt'), join(workspace, 'file-link'));
    const call = tools();
    expect((await call('list_files', { path: 'dir-link' })).isError).toBe(true);
    expect((await call('search_files', { path: 'dir-link', regex: 'API' })).isError).toBe(true);
    const everywhere = await call('search_files', { regex: 'API_KEY' });
    expect(everywhere.output).toBe('no matches');
    const listed = await call('list_files', { recursive: true });
    expect(listed.output).not.toContain('secret.txt');
  });

  it('still follows links that stay inside, and refuses .. and absolute paths', async () => {
    mkdirSync(join(workspace, 'src'));
    writeFileSync(join(workspace, 'src', 'a.ts'), 'export {}');
    symlinkSync(join(workspace, 'src'), join(workspace, 'alias'));
    const call = tools();
    expect(await call('read_file', { path: 'alias/a.ts' })).toMatchObject({
      isError: false,
      output: 'export {}',
    });
    expect((await call('write_to_file', { path: 'alias/b.ts', content: 'b' })).isError).toBe(false);
    expect(readFileSync(join(workspace, 'src', 'b.ts'), 'utf8')).toBe('b');
    for (const path of ['../outside/secret.txt', join(outside, 'secret.txt')])
      expect((await call('read_file', { path })).isError).toBe(true);
  });

  it('a folder swapped for a link while writing never lands a file outside', async () => {
    const call = tools();
    const folder = join(workspace, 'd');
    const parked = join(workspace, 'parked');
    mkdirSync(folder);
    let swaps = 0;
    let running = true;
    // Swap d between a real folder and a link to the outside folder, between the writer's steps.
    const swapper = () => {
      if (!running) return;
      try {
        if (swaps % 2 === 0) {
          renameSync(folder, parked);
          symlinkSync(outside, folder);
        } else {
          rmSync(folder);
          renameSync(parked, folder);
        }
        swaps++;
      } catch {
        // a step of the writer may hold the name for a moment; try again next tick
      }
      setImmediate(swapper);
    };
    setImmediate(swapper);
    for (let i = 0; i < 300; i++) {
      const path = i % 2 === 0 ? 'd/f.txt' : `d/sub${i}/f.txt`;
      await call('write_to_file', { path, content: 'x' });
    }
    running = false;
    expect(swaps).toBeGreaterThan(10);
    expect(readdirSync(outside)).toEqual(['secret.txt']);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe('API_KEY=hunter2');
  });
});

describe('workspace tools have caps', () => {
  it('refuses a file over maxReadBytes with a clear error, and reads one at the cap', async () => {
    writeFileSync(join(workspace, 'big.txt'), 'x'.repeat(2000));
    writeFileSync(join(workspace, 'fits.txt'), 'y'.repeat(1000));
    const call = tools({ maxReadBytes: 1000 });
    expect(await call('read_file', { path: 'big.txt' })).toMatchObject({
      isError: true,
      output: '"big.txt" is 2000 bytes; files of at most 1000 bytes can be read',
    });
    expect((await call('read_file', { path: 'fits.txt' })).output).toHaveLength(1000);
  });

  it('refuses folders, FIFOs and devices without blocking', async () => {
    execFileSync('mkfifo', [join(workspace, 'pipe')]);
    symlinkSync('/dev/zero', join(workspace, 'zero'));
    mkdirSync(join(workspace, 'folder'));
    const call = tools();
    expect((await call('read_file', { path: 'pipe' })).output).toContain('not a regular file');
    expect((await call('read_file', { path: 'folder' })).isError).toBe(true);
    expect((await call('read_file', { path: 'zero' })).isError).toBe(true);
    expect((await call('write_to_file', { path: 'pipe', content: 'x' })).isError).toBe(true);
  });

  it('search_files runs a catastrophic pattern in linear time, and rejects what RE2 cannot do', async () => {
    writeFileSync(join(workspace, 'a.txt'), `${'a'.repeat(5000)}b\n`);
    const call = tools();
    // (a+)+$ against a's then b takes 2^n steps in a backtracking engine: the test's timeout
    // is the guard.
    expect((await call('search_files', { regex: '(a+)+$' })).output).toBe('no matches');
    expect((await call('search_files', { regex: 'a+b' })).output).toMatch(/^a\.txt:1: a+b$/);
    expect((await call('search_files', { regex: '(a)\\1' })).output).toContain('invalid regex');
  });

  it('a workspace that does not exist is said plainly', async () => {
    const toolbox = createToolbox({ tools: workspaceTools(join(base, 'nope')) });
    const result = await toolbox.dispatch({
      id: 'c',
      serverName: 'local',
      toolName: 'read_file',
      arguments: { path: 'a' },
    });
    expect(result.output).toContain('does not exist');
    expect(existsSync(join(base, 'nope'))).toBe(false);
  });
});
