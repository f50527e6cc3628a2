import { createParser, parse } from './src/protocol/index.js';

const text =
  '}&<think>}{"</think>\'</think>\n{"name": "ping", "arguments": "patch""level":]false\n<tool_call>\n{"name": "edit", "arguments": {"path":"<b>&</think>\'</)),(</think>日本:웢"\n ,  "count":  1, "level":null}}\n</tool_call>\n<tool_call>\n{"name": "task_completion", "arguments": {"result":"\\the<</1]false"\n}}\n</tool_call> ';
const r = parse(text, { dialect: 'hermes' });
console.log(
  r.calls.map((c) => [c.toolName, JSON.stringify(c.arguments), c.raw.slice(0, 40)]),
  r.warnings.map((w) => w.code),
  r.errors.map((e) => [e.code, e.message]),
);
const ev: string[] = [];
const p = createParser({
  dialect: 'hermes',
  onEvent(e) {
    if (e.type.startsWith('tool') || e.type === 'argument-delta' || e.type === 'error')
      ev.push(JSON.stringify(e).slice(0, 120));
  },
});
for (let i = 0; i < text.length; i += 7) p.feed(text.slice(i, i + 7));
p.end();
console.log(ev.join('\n'));
