// Run with --expose-gc: makes 20,000 short-lived parsers of one kind (argument 2), each
// reading one reply and dropped, then prints how many MiB two minor collections leave that a
// full one frees: what the old generation kept alive of parsers already dropped.
import { createNativeCalls, createParser, type Dialect } from './all.js';

const gc = (globalThis as { gc?: (options?: { type: 'minor' }) => void }).gc as (options?: {
  type: 'minor';
}) => void;
const [kind, reply] = process.argv.slice(2);
for (let i = 0; i < 20_000; i++) {
  if (kind === 'native') {
    const native = createNativeCalls({ tools: [], idPrefix: 'c_' }, () => {});
    native.feed(reply);
    native.end();
  } else {
    const parser = createParser({ dialect: kind as Dialect, onEvent: () => {} });
    parser.feed(reply);
    parser.end();
  }
}
gc({ type: 'minor' });
gc({ type: 'minor' });
const afterMinor = process.memoryUsage().heapUsed;
gc();
process.stdout.write(String((afterMinor - process.memoryUsage().heapUsed) / 2 ** 20));
