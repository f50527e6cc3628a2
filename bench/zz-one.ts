import { tagcallFeed } from './cases.js';
import { generateOneToolReplies } from './corpus.js';
import { splitEvery } from './measure.js';

const replies = generateOneToolReplies(1_000_000);
const chunks = replies.messages.map((m: string) => splitEvery(m, Number(process.env.SIZE ?? 4)));
let bytes = 0;
for (const m of replies.messages) bytes += Buffer.byteLength(m);
const times = [];
for (let r = 0; r < 30; r++) {
  const t = performance.now();
  tagcallFeed(chunks);
  times.push(performance.now() - t);
}
console.log(times.map((t) => (bytes / 1e6 / (t / 1000)).toFixed(1)).join(' '));
console.log(JSON.stringify(replies.messages[0].slice(0, 1500)));
