/**
 * Many agents on one database (#46 item 3): 64 writers at once, each appending its own thread
 * through one store, every append durable before it resolves. SQLite (a real file through
 * libsql) and PostgreSQL (a real server in a temporary folder on 127.0.0.1) take 64 × 200;
 * the JSONL store with fsync, for comparison, 64 × 20 (each of its appends is its own fsync).
 * What must hold: every acknowledged append is there, each thread in its order, also when the
 * writing process or the database server is killed mid-load, and the database stores commit
 * many appends per transaction (group commit). The throughput is measured in bench/stores.ts.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createJsonlStore,
  createPostgresStore,
  createSqliteStore,
  type MessageStore,
} from '../src/memory/index.js';
import { textOf, user } from './support/all.js';
import { appendConcurrently, loadedNumbers, loadThreadId } from './support/concurrent-load.js';
import { type PostgresServer, postgresBin, startPostgres } from './support/postgres-server.js';
import { until } from './support/store-contract.js';
import { tempDirsAndStores } from './support/temp-stores.js';

const WRITERS = 64;
const PER_WRITER = 200;
const APPENDER = fileURLToPath(new URL('./support/concurrent-appender.ts', import.meta.url));

const { tempDir, opened } = tempDirsAndStores('tagcall-concurrent-');

/** Every writer's thread holds exactly its messages 0 … perWriter - 1, in order. */
async function expectEveryThreadWhole(store: MessageStore, writers: number, perWriter: number) {
  const whole = Array.from({ length: perWriter }, (_, n) => n);
  for (let writer = 0; writer < writers; writer++) {
    const loaded = await store.load(loadThreadId(writer));
    expect(loaded.damaged).toEqual([]);
    expect(loadedNumbers(writer, loaded), `thread of writer ${writer}`).toEqual(whole);
  }
}

/**
 * After a crash: each writer's thread is its messages 0 … m - 1 in order, m at least what was
 * acknowledged and at most one more (the append it was waiting on may have committed).
 */
async function expectAcknowledgedKept(store: MessageStore, acked: number[]) {
  for (let writer = 0; writer < acked.length; writer++) {
    const loaded = await store.load(loadThreadId(writer));
    const numbers = loadedNumbers(writer, loaded);
    expect(numbers, `thread of writer ${writer}`).toEqual(numbers.map((_, n) => n));
    expect(numbers.length).toBeGreaterThanOrEqual(acked[writer]);
    expect(numbers.length).toBeLessThanOrEqual(acked[writer] + 1);
  }
}

/** Appends fired without waiting, one thread among others: they land in the order made. */
async function expectUnawaitedOrderKept(store: MessageStore) {
  const appends = Array.from({ length: 100 }, (_, n) => store.append('eager', user(`${n}`)));
  const others = appendConcurrently(store, 8, 10);
  await Promise.all([...appends, others]);
  const texts = (await store.load('eager')).messages.map(textOf);
  expect(texts).toEqual(Array.from({ length: 100 }, (_, n) => `${n}`));
}

/** The concurrent load in a child process, `acked[writer]` counting its acknowledged appends. */
function concurrentAppender(kind: 'sqlite' | 'postgres', where: string) {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', APPENDER, kind, where, String(WRITERS), String(PER_WRITER)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const acked = Array.from({ length: WRITERS }, () => 0);
  let total = 0;
  let rest = '';
  child.stdout.on('data', (data: Buffer) => {
    const lines = (rest + data.toString()).split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) {
      const [writer, n] = line.split(' ').map(Number);
      expect(n).toBe(acked[writer]); // each writer's acknowledgements come in order
      acked[writer]++;
      total++;
    }
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return { child, acked, total: () => total, exited };
}

describe('64 writers on one SQLite file', () => {
  it(`64 × ${PER_WRITER} appends: every one there, each thread in its order`, async () => {
    const path = join(tempDir(), 'threads.db');
    await appendConcurrently(opened(createSqliteStore({ path })), WRITERS, PER_WRITER);
    await expectEveryThreadWhole(opened(createSqliteStore({ path })), WRITERS, PER_WRITER);
  }, 60_000);

  it('appends made without waiting keep their order', async () => {
    await expectUnawaitedOrderKept(
      opened(createSqliteStore({ path: join(tempDir(), 'threads.db') })),
    );
  });

  it('the writing process killed mid-load: every acknowledged append is there, in order', async () => {
    const path = join(tempDir(), 'threads.db');
    const load = concurrentAppender('sqlite', path);
    await until(load.total, 1000);
    load.child.kill('SIGKILL');
    await load.exited;
    await expectAcknowledgedKept(opened(createSqliteStore({ path })), load.acked);
  }, 60_000);
});

const missing = postgresBin() === null;
if (missing)
  console.warn(
    'test/concurrent-stores.test.ts: the PostgreSQL tests are skipped: PostgreSQL is not installed (/usr/lib/postgresql/*/bin)',
  );

describe.skipIf(missing)('64 writers on one PostgreSQL database', () => {
  let server: PostgresServer;
  const open = (table: string) =>
    opened(createPostgresStore({ connectionString: server.connectionString, table }));
  beforeAll(async () => {
    server = await startPostgres();
  }, 60_000);
  afterAll(() => server?.stop());

  it(`64 × ${PER_WRITER} appends: every one there, each thread in its order, committed in groups`, async () => {
    await appendConcurrently(open('load'), WRITERS, PER_WRITER);
    await expectEveryThreadWhole(open('load'), WRITERS, PER_WRITER);
    // A row's xmin is the transaction that inserted it: far fewer transactions than appends
    // means appends waiting at once were committed together.
    const { default: pg } = await import('pg');
    const client = new pg.Client(server.connectionString);
    await client.connect();
    try {
      const { rows } = await client.query(
        'SELECT count(*)::int AS appends, count(DISTINCT xmin::text)::int AS transactions FROM load',
      );
      expect(rows[0].appends).toBe(WRITERS * PER_WRITER);
      expect(rows[0].transactions).toBeLessThanOrEqual((WRITERS * PER_WRITER) / 4);
    } finally {
      await client.end();
    }
  }, 60_000);

  it('appends made without waiting keep their order, over several connections', async () => {
    await expectUnawaitedOrderKept(open('eager'));
  });

  it('the writing process killed mid-load: every acknowledged append is there, in order', async () => {
    await open('tagcall_messages').list(); // the table exists before the child starts
    const load = concurrentAppender('postgres', server.connectionString);
    await until(load.total, 1000);
    load.child.kill('SIGKILL');
    await load.exited;
    await expectAcknowledgedKept(open('tagcall_messages'), load.acked);
  }, 60_000);

  it('the server killed (SIGKILL) mid-load and restarted: every acknowledged append survives', async () => {
    const store = open('server_crash');
    const acked = Array.from({ length: WRITERS }, () => 0);
    let total = 0;
    const failure = appendConcurrently(store, WRITERS, PER_WRITER, (writer) => {
      acked[writer]++;
      total++;
    }).then(
      () => null,
      (error: unknown) => error,
    );
    await until(() => total, 1000);
    await server.crash();
    expect(await failure).toBeInstanceOf(Error);
    server.start();
    await expectAcknowledgedKept(open('server_crash'), acked);
  }, 60_000);

  it('a connection the server ended while idle is no crash: appends go on after a restart', async () => {
    // pg tells an idle connection's end as the pool's 'error', thrown from the process when
    // nobody listens (an uncaught exception here, which fails the run).
    const store = open('idle_crash');
    await store.append('idle', user('before'));
    await server.crash();
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the pool hears of it
    server.start();
    await store.append('idle', user('after'));
    expect((await store.load('idle')).messages.map(textOf)).toEqual(['before', 'after']);
  }, 60_000);
});

describe('64 writers on one JSONL folder (fsync), for comparison', () => {
  it('64 × 20 appends: every one there, each thread in its order', async () => {
    const dir = tempDir();
    await appendConcurrently(opened(createJsonlStore({ dir, fsync: true })), WRITERS, 20);
    await expectEveryThreadWhole(opened(createJsonlStore({ dir })), WRITERS, 20);
  }, 60_000);
});
