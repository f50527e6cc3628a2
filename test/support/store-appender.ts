// Appends numbered messages to a thread of a SQLite or PostgreSQL store, printing each number
// once its append resolved: the victim of the crash tests, and one of the concurrent writers.
import { createPostgresStore, createSqliteStore } from '../../src/memory/index.js';
import { user } from './all.js';

const [kind, where, thread, prefix, count] = process.argv.slice(2);
const store =
  kind === 'sqlite'
    ? createSqliteStore({ path: where })
    : createPostgresStore({ connectionString: where });
const limit = count === undefined ? Number.POSITIVE_INFINITY : Number(count);
for (let n = 0; n < limit; n++) {
  await store.append(thread, user(`${prefix}${n} ${'x'.repeat((n * 7919) % 16384)}`));
  process.stdout.write(`${n}\n`);
}
await store.close();
