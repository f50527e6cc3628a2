import { tagcallFeed } from './cases.js';
import { generateCorpus } from './corpus.js';
import { splitEvery } from './measure.js';

const corpus = generateCorpus(5_000_000);
const chunks = corpus.messages.map((m: string) => splitEvery(m, Number(process.env.SIZE ?? 4)));
let bytes = 0;
for (const m of corpus.messages) bytes += Buffer.byteLength(m);
const times = [];
for (let r = 0; r < 12; r++) {
  const t = performance.now();
  tagcallFeed(chunks);
  times.push(performance.now() - t);
}
console.log(times.map((t) => (bytes / 1e6 / (t / 1000)).toFixed(1)).join(' '));
