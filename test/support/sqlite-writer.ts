// Appends numbered messages to a thread of a SQLite store, printing each number once its append
// resolved: the victim of the crash test, and one of the concurrent writers.
import { createSqliteStore } from '../../src/memory/index.js';
import { user } from './all.js';

const [path, thread, prefix, count] = process.argv.slice(2);
const store = createSqliteStore({ path });
const limit = count === undefined ? Number.POSITIVE_INFINITY : Number(count);
for (let n = 0; n < limit; n++) {
  await store.append(thread, user(`${prefix}${n} ${'x'.repeat((n * 7919) % 16384)}`));
  process.stdout.write(`${n}\n`);
}
await store.close();
