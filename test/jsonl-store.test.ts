import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  assistant,
  createJsonlStore,
  createMessage,
  fromJsonText,
  loadMemory,
  textOf,
  toJsonText,
  toolResult,
  user,
} from './support/all.js';
import { storeContract } from './support/store-contract.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-store-'));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('JSONL store: the store contract (as for SQLite and PostgreSQL)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-store-contract-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  storeContract(() => createJsonlStore({ dir, fsync: true }));
});

describe('JSONL store', () => {
  it('appends one record per message and loads them back, bytes included', async () => {
    const store = createJsonlStore({ dir: tempDir(), fsync: true });
    const image = createMessage('user', [
      { kind: 'image', mediaType: 'image/png', data: new Uint8Array([1, 2, 3]) },
    ]);
    const messages = [
      user('hi'),
      assistant('', { id: 'c1', toolName: 't' }),
      toolResult('c1', 't', 'ok'),
      image,
    ];
    for (const m of messages) await store.append('thread/1', m);
    expect(await store.load('thread/1')).toEqual({ messages, damaged: [] });
    expect(await store.list()).toEqual(['thread/1']);
    await store.delete('thread/1');
    expect(await store.list()).toEqual([]);
    expect(await store.load('thread/1')).toEqual({ messages: [], damaged: [] });
  });

  it('reports a torn last line, skips it, and cuts it so the next record starts clean', async () => {
    const dir = tempDir();
    const store = createJsonlStore({ dir });
    await store.append('t', user('one', { id: 'a' }));
    await store.append('t', user('two', { id: 'b' }));
    appendFileSync(join(dir, 't.jsonl'), '{"id":"c","role":"us');
    const loaded = await store.load('t');
    expect(loaded.messages.map((m) => m.id)).toEqual(['a', 'b']);
    expect(loaded.damaged).toEqual([{ line: 3, text: '{"id":"c","role":"us', kind: 'torn-tail' }]);
    await store.append('t', user('three', { id: 'd' }));
    expect(await store.load('t')).toMatchObject({
      damaged: [],
      messages: [{ id: 'a' }, { id: 'b' }, { id: 'd' }],
    });
  });

  it('reports a corrupt line in the middle and keeps everything around it', async () => {
    const dir = tempDir();
    const store = createJsonlStore({ dir });
    await store.append('t', user('one', { id: 'a' }));
    appendFileSync(join(dir, 't.jsonl'), 'not json\n');
    await store.append('t', user('two', { id: 'b' }));
    const loaded = await store.load('t');
    expect(loaded.messages.map((m) => m.id)).toEqual(['a', 'b']);
    expect(loaded.damaged).toEqual([{ line: 2, text: 'not json', kind: 'corrupt' }]);
  });

  it('survives a writer killed mid-stream: every complete record reloads, in order', async () => {
    const dir = tempDir();
    const writer = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./support/store-writer.ts', import.meta.url)),
        dir,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    await new Promise<void>((resolve) => writer.stdout.once('data', () => resolve()));
    await new Promise((resolve) => setTimeout(resolve, 50));
    writer.kill('SIGKILL');
    await new Promise((resolve) => writer.once('exit', resolve));
    const raw = readFileSync(join(dir, 'crash.jsonl'), 'utf8');
    const complete = raw.split('\n').length - 1;
    const loaded = await createJsonlStore({ dir }).load('crash');
    expect(loaded.messages.length).toBe(complete);
    expect(loaded.messages.length).toBeGreaterThan(50);
    for (const [n, m] of loaded.messages.entries())
      expect(textOf(m).startsWith(`${n} `)).toBe(true);
    expect(loaded.damaged.length).toBeLessThanOrEqual(1);
    if (loaded.damaged.length === 1) expect(loaded.damaged[0].kind).toBe('torn-tail');
  });

  it('on a full disk an append throws and leaves no torn record; what it reported as written loads', async () => {
    const dir = tempDir();
    // ulimit -f: writes past 4 KiB come up short and then fail (EFBIG), as on a full disk.
    const run = spawnSync(
      'bash',
      [
        '-c',
        'ulimit -f 4; exec "$0" --import tsx "$1" "$2"',
        process.execPath,
        fileURLToPath(new URL('./support/full-disk-writer.ts', import.meta.url)),
        dir,
      ],
      { encoding: 'utf8' },
    );
    const outcomes = JSON.parse(run.stdout) as Array<{ id: string; ok: boolean; error?: string }>;
    const written = outcomes.filter((o) => o.ok).map((o) => o.id);
    expect(written.length).toBeGreaterThan(3);
    expect(outcomes.length - written.length).toBeGreaterThan(0);
    expect(outcomes.find((o) => !o.ok)?.error).toMatch(/^could not append to thread "full": /);
    const store = createJsonlStore({ dir });
    const loaded = await store.load('full');
    expect(loaded.damaged).toEqual([]);
    expect(loaded.messages.map((m) => m.id)).toEqual(written);
    await store.append('full', user('after', { id: 'after' }));
    expect((await store.load('full')).messages.map((m) => m.id)).toEqual([...written, 'after']);
  });

  it('cuts a torn tail by bytes, also when it ends inside a multi-byte character', async () => {
    const dir = tempDir();
    const store = createJsonlStore({ dir });
    await store.append('t', user('ünïcødé ✓', { id: 'a' }));
    const torn = Buffer.from('{"id":"b","text":"日本');
    appendFileSync(join(dir, 't.jsonl'), torn.subarray(0, torn.length - 1));
    expect((await store.load('t')).damaged).toHaveLength(1);
    await store.append('t', user('next', { id: 'c' }));
    expect(await store.load('t')).toMatchObject({
      damaged: [],
      messages: [{ id: 'a' }, { id: 'c' }],
    });
  });

  it('an append after a torn tail (a crash, never loaded) cuts it first: records are never glued', async () => {
    const dir = tempDir();
    const store = createJsonlStore({ dir });
    await store.append('t', user('one', { id: 'a' }));
    appendFileSync(join(dir, 't.jsonl'), '{"id":"torn","rol');
    await store.append('t', user('two', { id: 'b' }));
    expect(await store.load('t')).toMatchObject({
      damaged: [],
      messages: [{ id: 'a' }, { id: 'b' }],
    });
  });

  it('reads a thread as a stream of lines: a record over maxRecordBytes is reported and skipped', async () => {
    const dir = tempDir();
    const store = createJsonlStore({ dir, maxRecordBytes: 5000 });
    await store.append('t', user('small', { id: 'a' }));
    await store.append('t', user('x'.repeat(20_000), { id: 'huge' }));
    await store.append('t', user('small again', { id: 'b' }));
    const loaded = await store.load('t');
    expect(loaded.messages.map((m) => m.id)).toEqual(['a', 'b']);
    expect(loaded.damaged).toHaveLength(1);
    expect(loaded.damaged[0]).toMatchObject({ line: 2, kind: 'corrupt' });
    expect(loaded.damaged[0].text.length).toBeLessThan(5000);
  });

  it('backs a memory: add persists, loadMemory restores the thread', async () => {
    const store = createJsonlStore({ dir: tempDir() });
    const { memory } = await loadMemory({ store, threadId: 'chat', budget: 1000 });
    await memory.add(user('remember me'), assistant('noted'));
    const { memory: again, damaged } = await loadMemory({ store, threadId: 'chat', budget: 1000 });
    expect(damaged).toEqual([]);
    expect((await again.messages()).map(textOf)).toEqual(['remember me', 'noted']);
  });
});

describe('what a model or a file sends cannot pass for the store’s own records (#30)', () => {
  it('an argument the model wrote as {"$bytes": …} comes back as that object, not as bytes', async () => {
    const store = createJsonlStore({ dir: tempDir() });
    const forged = { $bytes: 'aGVsbG8=' };
    const args = { image: forged, nested: [{ $$x: 1, $y: { $bytes: 'AA==' } }], plain: 'x' };
    const reply = assistant('', { id: 'c1', toolName: 'upload', arguments: args });
    const bytes = createMessage('user', [
      { kind: 'image', mediaType: 'image/png', data: new Uint8Array([104, 105]) },
    ]);
    await store.append('t', reply);
    await store.append('t', bytes);
    const [back, image] = (await store.load('t')).messages;
    const call = back.parts.find((p) => p.kind === 'tool-call');
    expect(call?.kind === 'tool-call' && call.arguments).toEqual(args);
    expect(call?.kind === 'tool-call' && call.arguments.image).not.toBeInstanceOf(Uint8Array);
    expect(image).toEqual(bytes);
  });

  it('any JSON data round-trips exactly, keys with $ included', () => {
    const keys = fc.oneof(
      fc.constantFrom('$bytes', '$$bytes', '$', '$$', '__proto__'),
      fc.string(),
    );
    const data = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.integer(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(keys, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(data, (value) => {
        const text = toJsonText({ value });
        expect(JSON.stringify(fromJsonText<{ value: unknown }>(text).value)).toBe(
          JSON.stringify(value),
        );
      }),
      { numRuns: 500 },
    );
  });

  it('list() skips a file whose name the store did not write, and says so', async () => {
    const dir = tempDir();
    const told: string[] = [];
    const store = createJsonlStore({ dir, onForeignFile: (name) => told.push(name) });
    await store.append('thread one', user('hi'));
    for (const name of ['a%zz.jsonl', '%41.jsonl', 'notes.txt'])
      appendFileSync(join(dir, name), '');
    expect(await store.list()).toEqual(['thread one']);
    expect(told.sort()).toEqual(['%41.jsonl', 'a%zz.jsonl']);
  });
});
