/**
 * The thread stores side by side: appends a second (each durable as the store is configured:
 * JSONL with fsync, SQLite WAL + synchronous=FULL, PostgreSQL's default commit) and the time to
 * load a thread of 100,000 messages. PostgreSQL runs in a throwaway cluster on 127.0.0.1.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createJsonlStore,
  createPostgresStore,
  createSqliteStore,
  type MessageStore,
} from '../src/memory/index.js';
import { toJsonText, user } from '../src/messages/index.js';
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
