// Run under `ulimit -f`: appends until the file size limit stops it, as a full disk would
// (a short write, then an error), and prints what each append reported.
import { createJsonlStore, user } from './all.js';

const store = createJsonlStore({ dir: process.argv[2] });
const outcomes: Array<{ id: string; ok: boolean; error?: string }> = [];
for (let i = 0; i < 40; i++) {
  const id = `m${i}`;
  try {
    await store.append('full', user(`${i} ${'é'.repeat(120)}`, { id }));
    outcomes.push({ id, ok: true });
  } catch (error) {
    outcomes.push({ id, ok: false, error: (error as Error).message });
  }
}
process.stdout.write(JSON.stringify(outcomes));
