import { createParser } from './dist/index.js';
import { readFileSync } from 'node:fs';
const messages = JSON.parse(readFileSync('/tmp/msgs.json', 'utf8'));
const size = Number(process.argv[2] ?? 4);
const opts = process.argv[3] ? { prefilledThinking: process.argv[3] } : {};
const chunked = messages.map((m) => { const c = []; for (let i = 0; i < m.length; i += size) c.push(m.slice(i, i + size)); return c; });
const res = [];
for (let r = 0; r < 9; r++) {
  const p = createParser({ ...opts, onEvent: () => {} });
  const t0 = performance.now();
  for (const cs of chunked) { for (const c of cs) p.feed(c); p.end(); }
  res.push(5.09 / ((performance.now() - t0) / 1000));
}
res.sort((a, b) => a - b);
console.log(size, JSON.stringify(opts), 'median', res[4].toFixed(1), 'MB/s');
