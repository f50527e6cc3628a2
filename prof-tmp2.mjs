import { parse, createParser } from './dist/index.js';
import { readFileSync } from 'node:fs';
const messages = JSON.parse(readFileSync('/tmp/msgs.json', 'utf8'));
const mode = process.argv[2] ?? 'whole';
const opts = process.argv[3] ? { prefilledThinking: process.argv[3] } : {};
for (let r = 0; r < 8; r++) {
  const t0 = performance.now();
  if (mode === 'whole') for (const m of messages) parse(m, opts);
  else {
    const n = Number(mode);
    const p = createParser({ ...opts, onEvent: () => {} });
    for (const m of messages) { for (let i = 0; i < m.length; i += n) p.feed(m.slice(i, i + n)); p.end(); }
  }
  if (r >= 3) console.log(mode, (5.09 / ((performance.now() - t0) / 1000)).toFixed(1), 'MB/s');
}
