import { toJsonText } from '../messages/index.js';
import { createGroupCommit } from './group-commit.js';
import { checkThreadId, type MessageStore, threadOfRows } from './message-store.js';
import { isMissingPackage, missingPeerError } from './optional-peer.js';
import { describePostgresError, describingErrors } from './store-error.js';

const DEFAULT_TIMEOUT_MS = 10_000;

export interface PostgresStoreOptions {
  /** `postgres://user:password@host:port/database` (pg's connection string). */
  connectionString: string;
  /** The table (created on first use). Default `tagcall_messages`. */
  table?: string;
  /**
   * Connections at most, and so transactions of appends at once (each commits every append
   * queued when it starts: group commit). Default 4; see docs/memory.md for choosing it.
   */
  maxConnections?: number;
  /** Connecting, and each statement. Default 10 s. */
  timeoutMs?: number;
}

/** The part of pg's Pool the store uses. */
interface Pool {
  query(text: string, values?: unknown[]): Promise<{ rows: Array<Record<string, unknown>> }>;
  end(): Promise<void>;
  on(event: 'error', listener: (error: Error) => void): unknown;
}
type PoolConstructor = new (config: Record<string, unknown>) => Pool;

const maxConnections = (options: PostgresStoreOptions) => options.maxConnections ?? 4;
/** One transaction of appends at most: rows, and characters of JSON. */
const BATCH_ROWS = 1000;
const BATCH_CHARS = 16 * 2 ** 20;

async function createPool(options: PostgresStoreOptions): Promise<Pool> {
  let Pool: PoolConstructor;
  try {
    const pg = (await import('pg')) as unknown as { default: { Pool: PoolConstructor } };
    Pool = pg.default.Pool;
  } catch (error) {
    if (isMissingPackage(error, 'pg')) throw missingPeerError('the PostgreSQL store uses', 'pg');
    throw error;
  }
  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const pool = new Pool({
    connectionString: options.connectionString,
    max: maxConnections(options),
    connectionTimeoutMillis: timeout,
    statement_timeout: timeout,
    query_timeout: timeout,
  });
  // An idle connection the server ended (a restart, a network cut) is told as the pool's
  // 'error', which pg throws from the process when nobody listens. It is no append's failure:
  // the pool drops that connection and the next query opens another (or fails, and says so).
  pool.on('error', () => {});
  return pool;
}

/**
 * Threads in PostgreSQL through `pg` (an optional peer: `npm i pg`): one row per message in
 * one table, `seq bigserial` giving the order appended, the message as `json` (the JSONL
 * record's JSON, bytes as envelopes), queryable with `->`/`->>` or cast to `jsonb`. Not
 * `jsonb`: it reorders object keys (a call's arguments would come back, and be shown to the
 * model, in another order) and refuses `\u0000`, which tool output can hold. The table is
 * created on first use (`CREATE TABLE IF NOT EXISTS`, safe when several processes start at
 * once). An append resolves once the transaction holding it has committed (durable, under the
 * server's default `synchronous_commit`); appends made while the pool's connections are busy
 * are committed together, one statement for all (group commit), so many concurrent writers pay
 * about one commit each round. Any number of processes may append to one thread. A row is never
 * half-written: `damaged` lists only rows that are not a message. Its errors are `StoreError`s
 * that name the server (its URL without user and password), the cause and what to try.
 */
export function createPostgresStore(options: PostgresStoreOptions): MessageStore {
  const table = options.table ?? 'tagcall_messages';
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(table))
    throw new Error(`table ${JSON.stringify(table)}: lower-case letters, digits and _ only`);
  let ready: Promise<Pool> | null = null;
  const pool = () => {
    ready ??= (async () => {
      const created = await createPool(options);
      try {
        // Two processes creating the table at once can race in the catalog: the loser's
        // error is a unique violation, and the table is there.
        await created
          .query(
            `CREATE TABLE IF NOT EXISTS ${table} (seq bigserial PRIMARY KEY, thread_id text NOT NULL, message json NOT NULL)`,
          )
          .catch((error: { code?: string }) => {
            if (error.code !== '23505' && error.code !== '42P07') throw error;
          });
        await created.query(
          `CREATE INDEX IF NOT EXISTS ${table}_thread ON ${table} (thread_id, seq)`,
        );
      } catch (error) {
        ready = null;
        await created.end();
        throw error;
      }
      return created;
    })();
    return ready;
  };

  const writer = createGroupCommit({
    // In the order appended: the sequence numbers follow the rows' positions in the arrays.
    write: async (rows) => {
      await (await pool()).query(
        `INSERT INTO ${table} (thread_id, message) SELECT thread_id, message FROM unnest($1::text[], $2::json[]) WITH ORDINALITY AS batch (thread_id, message, position) ORDER BY position`,
        [rows.map((row) => row.threadId), rows.map((row) => row.text)],
      );
    },
    concurrency: maxConnections(options),
    maxRows: BATCH_ROWS,
    maxChars: BATCH_CHARS,
  });

  const timeout = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const store: MessageStore = {
    async append(threadId, message) {
      checkThreadId(threadId);
      await writer.append({ threadId, text: toJsonText(message) });
    },
    async load(threadId) {
      checkThreadId(threadId);
      const { rows } = await (await pool()).query(
        `SELECT message::text AS message FROM ${table} WHERE thread_id = $1 ORDER BY seq`,
        [threadId],
      );
      return threadOfRows(rows.map((row) => String(row.message)));
    },
    async delete(threadId) {
      checkThreadId(threadId);
      await (await pool()).query(`DELETE FROM ${table} WHERE thread_id = $1`, [threadId]);
    },
    async list() {
      const { rows } = await (await pool()).query(
        `SELECT DISTINCT thread_id FROM ${table} ORDER BY thread_id`,
      );
      return rows.map((row) => String(row.thread_id));
    },
    async close() {
      await writer.drained();
      if (ready === null) return;
      const open = ready;
      ready = null;
      // A pool that never opened has nothing to close (its error was told already).
      await (await open.catch(() => null))?.end();
    },
  };
  return describingErrors(store, (error) =>
    describePostgresError(error, options.connectionString, timeout),
  );
}
