import { createParser } from './dist/index.js';
const cdata = '<tool>\n<tool_name>w</tool_name>\n<arguments>\n<content><![CDATA[' + 'if (a < b && c) { return x & 0xff; }\n'.repeat(20000) + ']]></content>\n</arguments>\n</tool>\n';
const chunks = []; for (let i = 0; i < cdata.length; i += 4) chunks.push(cdata.slice(i, i + 4));
for (let r = 0; r < 10; r++) { const p = createParser({ prefilledThinking: 'never', onEvent: () => {} }); for (const c of chunks) p.feed(c); p.end(); }
