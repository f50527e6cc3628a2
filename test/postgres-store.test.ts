/**
 * The PostgreSQL store (#29 item 2) against a real PostgreSQL server that the test starts in a
 * temporary folder on 127.0.0.1 and stops by PID: the store contract, two processes appending
 * to one thread, a writer killed mid-append, the server killed (SIGKILL) and restarted, and a
 * thread of 100,000 messages. Skipped, saying why, where PostgreSQL is not installed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReplayModel } from '../src/agent/index.js';
import { createPostgresStore } from '../src/memory/index.js';
import { textOf } from './support/all.js';
import { replayRunFlags, runTagcall } from './support/cli-child.js';
import { type PostgresServer, postgresBin, startPostgres } from './support/postgres-server.js';
import { appender, storeContract, until } from './support/store-contract.js';

const missing = postgresBin() === null;
if (missing)
  console.warn(
    'test/postgres-store.test.ts skipped: PostgreSQL is not installed (/usr/lib/postgresql/*/bin)',
  );

describe.skipIf(missing)('PostgreSQL store', () => {
  let server: PostgresServer;
  const stores: Array<{ close(): Promise<void> }> = [];
  const open = (table?: string) => {
    const store = createPostgresStore({ connectionString: server.connectionString, table });
    stores.push(store);
    return store;
  };
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
  });
  afterAll(() => server?.stop());

  describe('the store contract', () => {
    storeContract(() => open());
  });

  it('two processes append 200 messages each to one thread: all 400, each in its order', async () => {
    await open().list(); // the table exists before both start
    const a = appender('postgres', server.connectionString, 'shared', 'a', 200);
    const b = appender('postgres', server.connectionString, 'shared', 'b', 200);
    expect(await a.exited, a.stderr()).toBe(0);
    expect(await b.exited, b.stderr()).toBe(0);
    const texts = (await open().load('shared')).messages.map((m) => textOf(m).split(' ')[0]);
    expect(texts).toHaveLength(400);
    for (const prefix of ['a', 'b'])
      expect(texts.filter((t) => t.startsWith(prefix))).toEqual(
        Array.from({ length: 200 }, (_, n) => `${prefix}${n}`),
      );
  });

  it('a writer killed mid-append loses nothing it acknowledged', async () => {
    const w = appender('postgres', server.connectionString, 'crash', 'm');
    await until(() => w.acked.length, 50);
    w.child.kill('SIGKILL');
    await w.exited;
    const loaded = await open().load('crash');
    expect(loaded.damaged).toEqual([]);
    expect(loaded.messages.length).toBeGreaterThanOrEqual(w.acked.length);
    expect(loaded.messages.length).toBeLessThanOrEqual(w.acked.length + 1);
    for (const [n, m] of loaded.messages.entries())
      expect(textOf(m).startsWith(`m${n} `)).toBe(true);
  });

  it('the server killed with SIGKILL and restarted keeps every acknowledged message', async () => {
    const w = appender('postgres', server.connectionString, 'server-crash', 's');
    await until(() => w.acked.length, 50);
    await server.crash();
    const acknowledged = w.acked.length;
    await w.exited; // its next append fails: the server is gone
    server.start();
    const loaded = await open().load('server-crash');
    expect(loaded.messages.length).toBeGreaterThanOrEqual(acknowledged);
    for (const [n, m] of loaded.messages.entries())
      expect(textOf(m).startsWith(`s${n} `)).toBe(true);
  }, 60_000);

  it('a thread of 100,000 messages loads whole and in order', async () => {
    const store = open('long_test');
    await store.list(); // creates the table
    const { default: pg } = (await import('pg')) as unknown as {
      default: {
        Client: new (
          s: string,
        ) => { connect(): Promise<void>; query(q: string): Promise<unknown>; end(): Promise<void> };
      };
    };
    const client = new pg.Client(server.connectionString);
    await client.connect();
    await client.query(
      `INSERT INTO long_test (thread_id, message) SELECT 'long', json_build_object('role', 'user', 'parts', json_build_array(json_build_object('kind', 'text', 'text', n::text))) FROM generate_series(0, 99999) AS n`,
    );
    await client.end();
    const loaded = await store.load('long');
    expect(loaded.damaged).toEqual([]);
    expect(loaded.messages).toHaveLength(100_000);
    expect(textOf(loaded.messages[99_999])).toBe('99999');
  }, 60_000);

  it('tagcall run --store postgres://… keeps the thread there', async () => {
    const done =
      '<tool>\n<tool_name>task_completion</tool_name>\n<arguments><result>ok</result></arguments>\n</tool>';
    const model = await startReplayModel({ replies: [done] });
    const workspace = mkdtempSync(join(tmpdir(), 'tagcall-pg-ws-'));
    try {
      const run = await runTagcall([
        'run',
        'say ok',
        ...replayRunFlags(model.url, workspace),
        '--thread',
        'cli-job',
        '--store',
        server.connectionString,
      ]);
      expect(run.stderr).not.toContain('tagcall:');
      expect(run.status).toBe(0);
      const loaded = await open().load('cli-job');
      expect(loaded.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    } finally {
      await model.close();
      rmSync(workspace, { recursive: true, force: true });
    }
  });
});
