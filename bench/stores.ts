/**
 * The thread stores side by side: appends a second (each durable as the store is configured:
 * JSONL with fsync, SQLite WAL + synchronous=FULL, PostgreSQL's default commit), the time to
 * load a thread of 100,000 messages, and many agents at once (64 writers × 200 appends, each
 * its own thread) against one writer. PostgreSQL runs in a throwaway cluster on 127.0.0.1.
 * Alone: `node --import tsx bench/stores.ts` prints the two tables.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createJsonlStore,
  createPostgresStore,
  createSqliteStore,
  type MessageStore,
} from '../src/memory/index.js';
import { toJsonText, user } from '../src/messages/index.js';
import { appendConcurrently } from '../test/support/concurrent-load.js';
import { postgresBin, startPostgres } from '../test/support/postgres-server.js';
import { now } from './measure.js';

const APPENDS = 500;
const THREAD = 100_000;

export interface StoreRow {
  store: string;
  appendsPerSecond: number;
  loadMs: number;
  messages: number;
}

const message = (n: number) => user(`message ${n}: ${'the parser reads a < b && c; '.repeat(7)}`);

async function measure(
  store: MessageStore,
  name: string,
  bulk: (rows: string[]) => Promise<void>,
): Promise<StoreRow> {
  const started = now();
  for (let n = 0; n < APPENDS; n++) await store.append('appends', message(n));
  const appendsPerSecond = APPENDS / ((now() - started) / 1000);
  await bulk(Array.from({ length: THREAD }, (_, n) => toJsonText(message(n))));
  const loading = now();
  const loaded = await store.load('long');
  const loadMs = now() - loading;
  await store.close();
  return { store: name, appendsPerSecond, loadMs, messages: loaded.messages.length };
}

export async function runStores(): Promise<StoreRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-bench-stores-'));
  const rows: StoreRow[] = [];
  try {
    rows.push(
      await measure(createJsonlStore({ dir, fsync: true }), 'JSONL (fsync)', async (lines) =>
        writeFileSync(join(dir, 'long.jsonl'), `${lines.join('\n')}\n`),
      ),
    );
    const path = join(dir, 'threads.db');
    rows.push(
      await measure(createSqliteStore({ path }), 'SQLite (libsql, WAL, FULL)', async (lines) => {
        const { default: Database } = (await import('libsql')) as unknown as {
          default: new (
            p: string,
          ) => {
            exec(sql: string): void;
            prepare(sql: string): { run(...v: unknown[]): unknown };
            close(): void;
          };
        };
        const db = new Database(path);
        const insert = db.prepare(
          'INSERT INTO tagcall_messages (thread_id, message) VALUES (?, ?)',
        );
        db.exec('BEGIN');
        for (const line of lines) insert.run('long', line);
        db.exec('COMMIT');
        db.close();
      }),
    );
    if (postgresBin() !== null) {
      const server = await startPostgres();
      try {
        const store = createPostgresStore({ connectionString: server.connectionString });
        rows.push(
          await measure(store, 'PostgreSQL 15 (pg, json)', async (lines) => {
            const { default: pg } = (await import('pg')) as unknown as {
              default: {
                Client: new (
                  s: string,
                ) => {
                  connect(): Promise<void>;
                  query(q: string, v?: unknown[]): Promise<unknown>;
                  end(): Promise<void>;
                };
              };
            };
            const client = new pg.Client(server.connectionString);
            await client.connect();
            for (let i = 0; i < lines.length; i += 5000)
              await client.query(
                'INSERT INTO tagcall_messages (thread_id, message) SELECT $1, unnest($2::json[])',
                ['long', lines.slice(i, i + 5000)],
              );
            await client.end();
          }),
        );
      } finally {
        server.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

export const CONCURRENT_WRITERS = 64;
export const APPENDS_PER_WRITER = 200;
/** PostgreSQL's pool sizes measured; 4 is the store's default. */
const POOL_SIZES = [1, 4, 16];
/** One writer and then 64, this many times in turn (the disk is shared and its speed drifts). */
const CONCURRENT_ROUNDS = 2;

export interface ConcurrentRow {
  store: string;
  /** Appends a second, one writer appending 200 messages. */
  oneWriter: number;
  /** Appends a second, 64 writers appending 200 messages each at once. */
  manyWriters: number;
}

/** Appends a second of `writers` × 200 appends on fresh threads (`round` keeps them apart). */
async function rate(store: MessageStore, writers: number, round: number): Promise<number> {
  const renamed: MessageStore = {
    ...store,
    append: (threadId, message) => store.append(`${round}-${writers}-${threadId}`, message),
  };
  const started = now();
  await appendConcurrently(renamed, writers, APPENDS_PER_WRITER);
  return (writers * APPENDS_PER_WRITER) / ((now() - started) / 1000);
}

async function concurrentRow(name: string, store: MessageStore): Promise<ConcurrentRow> {
  const one: number[] = [];
  const many: number[] = [];
  for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
    one.push(await rate(store, 1, round));
    many.push(await rate(store, CONCURRENT_WRITERS, round));
  }
  await store.close();
  const mean = (rates: number[]) => rates.reduce((a, b) => a + b, 0) / rates.length;
  return { store: name, oneWriter: mean(one), manyWriters: mean(many) };
}

export async function runConcurrentStores(): Promise<ConcurrentRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-bench-concurrent-'));
  const rows: ConcurrentRow[] = [];
  try {
    rows.push(
      await concurrentRow(
        'JSONL (fsync)',
        createJsonlStore({ dir: join(dir, 'jsonl'), fsync: true }),
      ),
    );
    rows.push(
      await concurrentRow(
        'SQLite (libsql, WAL, FULL)',
        createSqliteStore({ path: join(dir, 'threads.db') }),
      ),
    );
    if (postgresBin() !== null) {
      const server = await startPostgres();
      try {
        for (const pool of POOL_SIZES)
          rows.push(
            await concurrentRow(
              `PostgreSQL 15, pool of ${pool}${pool === 4 ? ' (default)' : ''}`,
              createPostgresStore({
                connectionString: server.connectionString,
                maxConnections: pool,
                table: `pool_${pool}`,
              }),
            ),
          );
      } finally {
        server.stop();
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

/** The Markdown of both store tables (bench/run.ts prints it between its other sections). */
export function storeTables(stores: StoreRow[], concurrent: ConcurrentRow[]): string[] {
  return [
    '## Thread stores: appends and loading a 100,000-message thread',
    '',
    `Each append durable as the store is configured (JSONL with fsync; SQLite WAL, synchronous=FULL; PostgreSQL in a throwaway cluster on 127.0.0.1, default commit); ${APPENDS} appends of a 230-character message, then a 100,000-message thread loaded.`,
    '',
    '| store | appends/s | load 100,000 messages, ms |',
    '|---|---:|---:|',
    ...stores.map(
      (row) => `| ${row.store} | ${row.appendsPerSecond.toFixed(0)} | ${row.loadMs.toFixed(0)} |`,
    ),
    '',
    `## Many agents on one store: ${CONCURRENT_WRITERS} writers at once, ${APPENDS_PER_WRITER} durable appends each`,
    '',
    `Each writer appends to a thread of its own and waits for each append before the next, as an agent does; one store object (one process) for all. One writer's ${APPENDS_PER_WRITER} appends against the ${CONCURRENT_WRITERS} writers' ${(CONCURRENT_WRITERS * APPENDS_PER_WRITER).toLocaleString('en')}, ${CONCURRENT_ROUNDS} rounds in turn, the mean of each.`,
    '',
    `| store | 1 writer, appends/s | ${CONCURRENT_WRITERS} writers, appends/s | × |`,
    '|---|---:|---:|---:|',
    ...concurrent.map(
      (row) =>
        `| ${row.store} | ${row.oneWriter.toFixed(0)} | ${row.manyWriters.toFixed(0)} | ${(row.manyWriters / row.oneWriter).toFixed(1)}× |`,
    ),
    '',
  ];
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1])
  console.log(storeTables(await runStores(), await runConcurrentStores()).join('\n'));
