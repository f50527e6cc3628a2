// Run with --expose-gc: parses eight large replies (16 MiB each, each a fresh string) whose
// calls have long tag and argument names, in the dialect of argument 2, whole or (`chunks`)
// in 64 KiB chunks; drops every reference to them and prints the MiB still held. What the
// parser keeps across replies (names, tags read before) must not hold the replies' text.
import { createParser, type Dialect } from './all.js';

const gc = (globalThis as { gc?: () => void }).gc as () => void;
const [dialect, mode] = process.argv.slice(2);
const held = () => {
  // V8 keeps the subject of the last regular-expression match (RegExp.lastMatch): a small one
  // lets the last reply go, so what is measured is the parser's.
  /x/.exec('x');
  gc();
  gc();
  const { heapUsed, external } = process.memoryUsage();
  return (heapUsed + external) / 2 ** 20;
};
const reply = (i: number) => {
  const name = `a_rather_long_argument_name_${i % 3}`;
  const call =
    dialect === 'hermes'
      ? `<tool_call>\n{"name": "write_the_file_${i}", "arguments": {"${name}": "v"}}\n</tool_call>`
      : `<tool>\n<server_name>a_long_server_name_${i}</server_name>\n<tool_name>write_the_file_${i}</tool_name>\n<arguments>\n<${name}>v</${name}>\n</arguments>\n</tool>`;
  // A new flat string each time: what a log line or a reply read from a file is.
  const prose = Buffer.alloc(16 * 2 ** 20, 0x61 + (i % 20)).toString('latin1');
  // A call cut off after its argument's name: the name is read, and no value stored under it.
  const cut =
    dialect === 'hermes'
      ? `<tool_call>\n{"name": "f", "arguments": {"${name}x": `
      : `<tool>\n<tool_name>f</tool_name>\n<arguments>\n<${name}x>`;
  return `${call}\n${prose}\n${call}\n${cut}`;
};
/** In a function of its own: a loop's last reply would stay in its frame. */
function parseOne(i: number): void {
  const parser = createParser({ dialect: dialect as Dialect, onEvent: () => {} });
  const text = reply(i);
  if (mode !== 'chunks') parser.feed(text);
  else for (let at = 0; at < text.length; at += 65536) parser.feed(text.slice(at, at + 65536));
  parser.end();
}
const before = held();
for (let i = 0; i < 8; i++) parseOne(i);
process.stdout.write(String(Math.round(held() - before)));
