// Appends numbered records to a JSONL thread until killed: the crash test's victim.
import { createJsonlStore, user } from './all.js';

const [dir, fsync] = process.argv.slice(2);
const store = createJsonlStore({ dir, fsync: fsync === 'fsync' });
for (let n = 0; ; n++) {
  await store.append('crash', user(`${n} ${'x'.repeat((n * 7919) % 65536)}`, { id: `m${n}` }));
  if (n === 50) process.stdout.write('ready\n');
}
