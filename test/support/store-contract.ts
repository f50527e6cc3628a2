// What every MessageStore keeps (JSONL, SQLite, PostgreSQL): the same tests for each.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import type { MessageStore } from '../../src/memory/index.js';
import {
  assistant,
  createMessage,
  loadMemory,
  type Message,
  textOf,
  toolResult,
  user,
} from './all.js';

/** `open()` gives a store over the same data each time (a new connection or handle). */
export function storeContract(open: () => MessageStore): void {
  it('appends and loads back in order: bytes, $-keys, key order, unicode, NUL, empty text', async () => {
    const store = open();
    const messages: Message[] = [
      user('hi ж 😀 <tool>&amp;</tool> \u0000 end'),
      assistant('', {
        id: 'c1',
        toolName: 'write',
        arguments: { zeta: 1, $bytes: 'aGVsbG8=', $$x: 1, alpha: [true, null, 1.5] },
      }),
      toolResult('c1', 'write', ''),
      createMessage('user', [
        { kind: 'image', mediaType: 'image/png', data: new Uint8Array([0, 1, 255]) },
      ]),
    ];
    for (const message of messages) await store.append('t1', message);
    await store.append('t2', user('other'));
    await store.close();
    const again = open();
    const loaded = await again.load('t1');
    expect(loaded.damaged).toEqual([]);
    expect(loaded.messages).toEqual(messages);
    // Key order is kept: the history is shown to the model as it was written.
    expect(JSON.stringify(loaded.messages[1])).toBe(JSON.stringify(messages[1]));
    expect(await again.list()).toEqual(['t1', 't2']);
    expect(await again.load('nobody')).toEqual({ messages: [], damaged: [] });
    await again.delete('t1');
    expect(await again.list()).toEqual(['t2']);
    expect((await again.load('t1')).messages).toEqual([]);
    await again.delete('t2');
    await again.close();
  });

  it('refuses a thread id it cannot keep as written (NUL, a lone surrogate) in every method, with a clear error', async () => {
    const store = open();
    await store.append('a', user('kept'));
    for (const id of ['a\u0000b', 'a\u0000', '\ud800x']) {
      for (const attempt of [
        () => store.append(id, user('lost?')),
        () => store.load(id),
        () => store.delete(id),
      ])
        await expect(attempt()).rejects.toThrow(
          expect.objectContaining({
            name: 'InvalidThreadIdError',
            message: expect.stringMatching(/^thread id ".*" holds (NUL|a lone surrogate)/),
          }),
        );
    }
    // Nothing was written under the id cut at the NUL.
    expect(await store.list()).toEqual(['a']);
    expect((await store.load('a')).messages.map(textOf)).toEqual(['kept']);
    await store.delete('a');
    await store.close();
  });

  it('backs a memory: add persists, loadMemory restores the thread', async () => {
    const store = open();
    const { memory } = await loadMemory({ store, threadId: 'chat', budget: 1000 });
    await memory.add(user('remember me'), assistant('noted'));
    const { memory: again, damaged } = await loadMemory({ store, threadId: 'chat', budget: 1000 });
    expect(damaged).toEqual([]);
    expect((await again.messages()).map(textOf)).toEqual(['remember me', 'noted']);
    await store.delete('chat');
    await store.close();
  });
}

const APPENDER = fileURLToPath(new URL('./store-appender.ts', import.meta.url));

/** A child process appending numbered messages (see store-appender.ts). */
export function appender(
  kind: 'sqlite' | 'postgres',
  where: string,
  thread: string,
  prefix: string,
  count?: number,
) {
  const args = ['--import', 'tsx', APPENDER, kind, where, thread, prefix];
  if (count !== undefined) args.push(String(count));
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  const acked: number[] = [];
  let rest = '';
  let stderr = '';
  child.stdout.on('data', (data: Buffer) => {
    const lines = (rest + data.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) acked.push(Number(line));
  });
  child.stderr.on('data', (data: Buffer) => {
    stderr += data;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, acked, exited, stderr: () => stderr };
}

/** Resolves once `count()` passes `n`. */
export async function until(count: () => number, n: number): Promise<void> {
  while (count() <= n) await new Promise((resolve) => setTimeout(resolve, 5));
}
