import { describe, expect, it } from 'vitest';
import { gcChildOutput } from './support/gc-child.js';

/**
 * A server makes a parser per request and drops it. If anything of a dropped parser is kept
 * from the old generation (an object literal's getter gives each object a hidden class of its
 * own there), minor collections copy every parser again and again: a short `auto` reply cost
 * 24 µs instead of 4, most of it the collector's.
 */
describe('parsers made and dropped per reply', () => {
  /**
   * The least of up to three children: parsers kept alive show in every run (20-40 MiB), while
   * what the collector has not got to yet varies with the machine's load (8.4 MiB once, beside
   * two other test runs and a bench, where a quiet run leaves 3-5).
   */
  const youngGarbage = (kind: string, reply: string) => {
    let least = Number.POSITIVE_INFINITY;
    for (let run = 0; run < 3 && least >= 8; run++)
      least = Math.min(least, Number(gcChildOutput('./young-garbage.ts', [kind, reply])));
    return least;
  };

  // 20,000 parsers held would be 20-40 MiB; what a minor collection may leave is the nursery's.
  it.each([
    ['auto', '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>'],
    ['auto', '<tool_call>'],
    ['auto', '[TOOL_CALLS]'],
    ['auto', '<|tool_call_start|>'],
    ['hermes', '<tool_call>\n{"name": "read_file", "arguments": {}}\n</tool_call>'],
    [
      'native',
      '<tool><server_name>local</server_name><tool_name>read_file</tool_name><arguments><path>a.txt</path></arguments></tool>',
    ],
  ])('%s reading %j leaves no dropped parser to minor collections', (kind, reply) => {
    expect(youngGarbage(kind, reply)).toBeLessThan(8);
  });
});

/**
 * What every parser shares (argument names, tags read before: names.ts, tag.ts) is kept
 * across replies. A slice of a reply is a view of all of it: kept as it is, a 30-character
 * name kept a whole 16 MiB reply alive.
 */
describe('what parsers share across replies', () => {
  const retained = (dialect: string, mode: string) =>
    Number(gcChildOutput('./retained-by-names.ts', [dialect, mode]));

  it.each([
    ['tagcall', 'whole'],
    ['tagcall', 'chunks'],
    ['hermes', 'whole'],
    ['hermes', 'chunks'],
  ])('%s, %s: eight 16 MiB replies with long names leave none of them held', (dialect, mode) => {
    expect(retained(dialect, mode)).toBeLessThan(4);
  });
});
