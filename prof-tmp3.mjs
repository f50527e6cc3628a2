import { createParser } from './dist/index.js';
const prose = ('The parser reads each chunk as it streams and `a < b` then R&D.\n').repeat(16000);
const cdata = '<tool>\n<tool_name>w</tool_name>\n<arguments>\n<content><![CDATA[' + 'if (a < b && c) { return x & 0xff; }\n'.repeat(20000) + ']]></content>\n</arguments>\n</tool>\n';
const plain = '<tool>\n<tool_name>w</tool_name>\n<arguments>\n<content>' + 'if (a &lt; b) { return x; }\n'.repeat(20000) + '</content>\n</arguments>\n</tool>\n';
for (const [name, text] of [['prose', prose], ['cdata', cdata], ['plain-entities', plain]]) {
  for (const opts of [{ prefilledThinking: 'never' }, {}]) {
  const chunks = []; for (let i = 0; i < text.length; i += 4) chunks.push(text.slice(i, i + 4));
  let best = 0;
  for (let r = 0; r < 6; r++) {
    const p = createParser({ ...opts, onEvent: () => {} });
    const t0 = performance.now();
    for (const c of chunks) p.feed(c);
    p.end();
    best = Math.max(best, text.length / 1e6 / ((performance.now() - t0) / 1000));
  }
  console.log(name, JSON.stringify(opts), best.toFixed(1), 'MB/s');
  }
}
