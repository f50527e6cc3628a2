import { generateCorpus } from './bench/corpus.ts';
import { parse, createParser } from './src/index.ts';
const c = generateCorpus(5_000_000);
const mode = process.argv[2] ?? 'whole';
let t0 = performance.now();
for (let r = 0; r < 5; r++) {
  if (mode === 'whole') for (const m of c.messages) parse(m);
  else {
    const p = createParser({ onEvent: () => {} });
    for (const m of c.messages) { for (let i = 0; i < m.length; i += 4) p.feed(m.slice(i, i + 4)); p.end(); }
  }
}
console.log(mode, (5 * 5.09 / ((performance.now() - t0) / 1000)).toFixed(1), 'MB/s');
