// A child process running the concurrent load on a SQLite or PostgreSQL store, printing
// `WRITER N` once each append resolved: the victim of the concurrent crash tests.
import { createPostgresStore, createSqliteStore } from '../../src/memory/index.js';
import { appendConcurrently } from './concurrent-load.js';

const [kind, where, threads, perThread] = process.argv.slice(2);
const store =
  kind === 'sqlite'
    ? createSqliteStore({ path: where })
    : createPostgresStore({ connectionString: where });
await appendConcurrently(store, Number(threads), Number(perThread), (writer, n) => {
  process.stdout.write(`${writer} ${n}\n`);
});
await store.close();
