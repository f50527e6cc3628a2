// Run with --expose-gc: dispatches `argv[2]` calls of a tool that returns a fresh 64 KiB
// string, each with the toolbox's 60 s timeout and one long-lived signal of the caller (as an
// agent run passes), drops the results, and prints the memory still held, in MiB (compare
// n calls with 2n: what a settled call leaves behind grows with n).
import { createToolbox, defineTool } from './all.js';

const gc = (globalThis as { gc?: () => void }).gc as () => void;
let made = 0;
const echo = defineTool({
  name: 'big',
  description: 'Returns 64 KiB.',
  inputSchema: { type: 'object' },
  handler: () => Buffer.alloc(64 * 1024, 0x61 + (made++ % 26)).toString('latin1'),
});
const toolbox = createToolbox({ tools: [echo] });
const run = new AbortController();
const calls = Number(process.argv[2]);
for (let i = 0; i < calls; i++) {
  const report = await toolbox.run(
    { id: `c${i}`, serverName: 'local', toolName: 'big', arguments: {} },
    { signal: run.signal },
  );
  if (report.outcome !== 'ok') throw new Error(report.result.output);
}
gc();
gc();
const { heapUsed, external } = process.memoryUsage();
process.stdout.write(String(Math.round((heapUsed + external) / 2 ** 20)));
// The pending timeouts (if any) would keep the process for 60 s.
process.exit(0);
