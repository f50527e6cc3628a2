/**
 * The SQLite store (#29 item 2) against a real SQLite file through libsql: the store contract
 * the JSONL store keeps, two processes appending to one thread, a writer killed mid-append, and
 * a thread of 100,000 messages.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startReplayModel } from '../src/agent/index.js';
import { createSqliteStore } from '../src/memory/index.js';
import { textOf, user } from './support/all.js';
import { replayRunFlags, runTagcall } from './support/cli-child.js';
import { appender, storeContract, until } from './support/store-contract.js';
import { tempDirsAndStores } from './support/temp-stores.js';

const { tempDir, opened } = tempDirsAndStores('tagcall-sqlite-');
const tempFile = () => join(tempDir(), 'threads.db');
const open = (path: string) => opened(createSqliteStore({ path }));

describe('SQLite store: the store contract', () => {
  const path = tempFile();
  storeContract(() => open(path));

  it('a row that is not a message (edited by hand) is reported as corrupt, the rest loads', async () => {
    const path = tempFile();
    const store = open(path);
    await store.append('t', user('one'));
    await store.append('t', user('two'));
    await store.close();
    const { default: Database } = (await import('libsql')) as unknown as {
      default: new (path: string) => { exec(sql: string): void; close(): void };
    };
    const db = new Database(path);
    db.exec("UPDATE tagcall_messages SET message = '{not json' WHERE seq = 1");
    db.close();
    const loaded = await open(path).load('t');
    expect(loaded.messages.map(textOf)).toEqual(['two']);
    expect(loaded.damaged).toEqual([{ line: 1, text: '{not json', kind: 'corrupt' }]);
  });
});

describe('SQLite store: processes and crashes', () => {
  it('two processes append 200 messages each to one thread: all 400, each in its order', async () => {
    const path = tempFile();
    await open(path).list(); // the schema exists before both start
    const a = appender('sqlite', path, 'shared', 'a', 200);
    const b = appender('sqlite', path, 'shared', 'b', 200);
    expect(await a.exited).toBe(0);
    expect(await b.exited).toBe(0);
    const texts = (await open(path).load('shared')).messages.map((m) => textOf(m).split(' ')[0]);
    expect(texts).toHaveLength(400);
    for (const prefix of ['a', 'b'])
      expect(texts.filter((t) => t.startsWith(prefix))).toEqual(
        Array.from({ length: 200 }, (_, n) => `${prefix}${n}`),
      );
  });

  it('a writer killed mid-append loses nothing it acknowledged, and the file still loads', async () => {
    const path = tempFile();
    const w = appender('sqlite', path, 'crash', 'm');
    await until(() => w.acked.length, 50);
    w.child.kill('SIGKILL');
    await w.exited;
    const acknowledged = w.acked.length;
    const loaded = await open(path).load('crash');
    expect(loaded.damaged).toEqual([]);
    expect(loaded.messages.length).toBeGreaterThanOrEqual(acknowledged);
    expect(loaded.messages.length).toBeLessThanOrEqual(acknowledged + 1);
    for (const [n, m] of loaded.messages.entries())
      expect(textOf(m).startsWith(`m${n} `)).toBe(true);
  });

  it('a thread of 100,000 messages loads whole and in order', async () => {
    const path = tempFile();
    const { default: Database } = (await import('libsql')) as unknown as {
      default: new (
        path: string,
      ) => {
        exec(sql: string): void;
        prepare(sql: string): { run(...params: unknown[]): unknown };
        close(): void;
      };
    };
    const store = open(path);
    await store.append('long', user('0'));
    // Written in one transaction (appends one by one sync each to disk: minutes, not seconds).
    const db = new Database(path);
    const insert = db.prepare('INSERT INTO tagcall_messages (thread_id, message) VALUES (?, ?)');
    db.exec('BEGIN');
    for (let n = 1; n < 100_000; n++)
      insert.run('long', JSON.stringify({ role: 'user', parts: [{ kind: 'text', text: `${n}` }] }));
    db.exec('COMMIT');
    db.close();
    const loaded = await store.load('long');
    expect(loaded.damaged).toEqual([]);
    expect(loaded.messages).toHaveLength(100_000);
    expect(textOf(loaded.messages[99_999])).toBe('99999');
  });
});

describe('tagcall run --store sqlite:PATH', () => {
  it('keeps the thread in the SQLite file', async () => {
    const done = (answer: string) =>
      `<tool>\n<tool_name>task_completion</tool_name>\n<arguments><result>${answer}</result></arguments>\n</tool>`;
    const model = await startReplayModel({ replies: [done('first'), done('second')] });
    const path = tempFile();
    const workspace = tempDir('tagcall-sqlite-ws-');
    try {
      const common = replayRunFlags(model.url, workspace);
      const args = ['--thread', 'job', '--store', `sqlite:${path}`];
      const first = await runTagcall(['run', 'say first', ...common, ...args]);
      expect(first.stderr).not.toContain('tagcall:');
      expect(first.status).toBe(0);
      const loaded = await open(path).load('job');
      expect(loaded.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
      expect(textOf(loaded.messages[1])).toBe('say first');
    } finally {
      await model.close();
    }
  });

  it('a store it cannot read, or a store without a thread, is a usage error (2)', async () => {
    const common = ['run', 't', '--base-url', 'http://127.0.0.1:9/v1', '--model', 'm'];
    for (const [args, message] of [
      [['--thread', 'x', '--store', 'redis://h'], 'expected sqlite:PATH'],
      [['--store', 'sqlite:a.db'], '--store keeps a --thread'],
    ] as const) {
      const run = await runTagcall([...common, ...args]);
      expect(run.status).toBe(2);
      expect(run.stderr).toContain(message);
    }
  });
});
