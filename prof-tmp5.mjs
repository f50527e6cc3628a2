import { createParser } from './dist/index.js';
import { readFileSync } from 'node:fs';
const messages = JSON.parse(readFileSync('/tmp/msgs.json', 'utf8'));
const opts = process.argv[2] ? { prefilledThinking: process.argv[2] } : {};
for (let r = 0; r < 15; r++) {
  const t0 = performance.now();
  const p = createParser({ ...opts, onEvent: () => {} });
  for (const m of messages) { p.feed(m); p.end(); }
  if (r > 10) console.log((5.09 / ((performance.now() - t0) / 1000)).toFixed(1), 'MB/s');
}
