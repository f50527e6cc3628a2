// Run with --expose-gc: makes eight 50 MiB tool results and, with `add` as its argument, adds
// them to a memory that cuts them to 1,000 characters; drops every other reference, and
// prints the memory still held, in MiB (compare the two runs).
import { createMemory, toolResult } from './all.js';

const gc = (globalThis as { gc?: () => void }).gc as () => void;
const memory = createMemory({ budget: 1_000_000, maxToolResultChars: 1000 });
for (let i = 0; i < 8; i++) {
  // A flat 50 MiB string (Node keeps one this large outside the JS heap, as `external`).
  const output = Buffer.alloc(50 * 1024 * 1024, 0x61 + i).toString('latin1');
  if (process.argv[2] === 'add') memory.add(toolResult(`c${i}`, 'read_file', output));
}
gc();
gc();
const { heapUsed, external } = process.memoryUsage();
process.stdout.write(String(Math.round((heapUsed + external) / 2 ** 20)));
