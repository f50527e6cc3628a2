import { toJsonText } from '../messages/index.js';
import { createGroupCommit } from './group-commit.js';
import { checkThreadId, type MessageStore, threadOfRows } from './message-store.js';
import { isMissingPackage, missingPeerError } from './optional-peer.js';
import { describeSqliteError, describingErrors } from './store-error.js';

export interface SqliteStoreOptions {
  /** The database file (created when missing). */
  path: string;
}

/** The part of libsql's (better-sqlite3's) synchronous API the store uses. */
interface Statement {
  run(...params: unknown[]): unknown;
  all(...params: unknown[]): Array<Record<string, unknown>>;
}
interface Database {
  readonly inTransaction: boolean;
  exec(sql: string): void;
  prepare(sql: string): Statement;
  close(): void;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS tagcall_messages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  thread_id TEXT NOT NULL,
  message TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS tagcall_messages_thread ON tagcall_messages (thread_id, seq);`;

async function openDatabase(path: string): Promise<Database> {
  let Driver: new (path: string) => Database;
  try {
    ({ default: Driver } = (await import('libsql')) as unknown as {
      default: new (path: string) => Database;
    });
  } catch (error) {
    if (isMissingPackage(error, 'libsql'))
      throw missingPeerError('the SQLite store uses', 'libsql');
    throw error;
  }
  const db = new Driver(path);
  // WAL lets readers go on while one writer appends; FULL syncs each commit to disk, so an
  // append that resolved survives a crash of the process or the machine.
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = FULL');
  // Another process appending to the same file holds the write lock for one insert.
  db.exec('PRAGMA busy_timeout = 10000');
  db.exec(SCHEMA);
  return db;
}

/**
 * Threads in one SQLite file through `libsql` (an optional peer: `npm i libsql`), one row per
 * message in the order appended (an autoincrement sequence), each message as the same JSON text
 * a JSONL record holds (bytes as envelopes). An append resolves once the transaction holding it
 * is synced to disk; appends made in one turn of the event loop, or while a commit was under
 * way, share one transaction (group commit: one sync for many writers). Several processes may
 * append to one file (SQLite's lock, waited on for up to 10 s). A row is never half-written, so `damaged` lists only rows that are
 * not a message (edited by hand), as `corrupt` with their place in the thread. Its errors are
 * `StoreError`s that name the file, the cause (a missing folder, not a database) and what to try.
 */
export function createSqliteStore(options: SqliteStoreOptions): MessageStore {
  let opened: Promise<Database> | null = null;
  let statements: { insert: Statement; select: Statement } | null = null;
  const database = async () => {
    opened ??= openDatabase(options.path);
    const db = await opened;
    statements ??= {
      insert: db.prepare('INSERT INTO tagcall_messages (thread_id, message) VALUES (?, ?)'),
      select: db.prepare('SELECT message FROM tagcall_messages WHERE thread_id = ? ORDER BY seq'),
    };
    return { db, ...statements };
  };

  const writer = createGroupCommit({
    write: async (rows) => {
      const { db, insert } = await database();
      // IMMEDIATE takes the write lock at the start, so the transaction cannot fail half-way
      // on another process's lock.
      db.exec('BEGIN IMMEDIATE');
      try {
        for (const row of rows) insert.run(row.threadId, row.text);
        db.exec('COMMIT');
      } catch (error) {
        if (db.inTransaction) db.exec('ROLLBACK');
        throw error;
      }
    },
    // One connection, and its calls block: one transaction at a time.
    concurrency: 1,
    maxRows: 1000,
    maxChars: 16 * 2 ** 20,
  });

  const store: MessageStore = {
    async append(threadId, message) {
      checkThreadId(threadId);
      await writer.append({ threadId, text: toJsonText(message) });
    },
    async load(threadId) {
      checkThreadId(threadId);
      const { select } = await database();
      return threadOfRows(select.all(threadId).map((row) => String(row.message)));
    },
    async delete(threadId) {
      checkThreadId(threadId);
      const { db } = await database();
      db.prepare('DELETE FROM tagcall_messages WHERE thread_id = ?').run(threadId);
    },
    async list() {
      const { db } = await database();
      return db
        .prepare('SELECT DISTINCT thread_id FROM tagcall_messages ORDER BY thread_id')
        .all()
        .map((row) => String(row.thread_id));
    },
    async close() {
      await writer.drained();
      if (opened === null) return;
      // A database that never opened has nothing to close (its error was told already).
      const db = await opened.catch(() => null);
      opened = null;
      statements = null;
      db?.close();
    },
  };
  return describingErrors(store, (error) => describeSqliteError(error, options.path));
}
