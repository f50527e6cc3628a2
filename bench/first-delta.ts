/**
 * How soon a call's argument text comes out: a 20 KB file body written by a model in each
 * format, fed 4 characters at a time, and the body's first `argument-delta` timed (characters
 * fed before it, and microseconds since the first feed), against the whole reply's time.
 */
import { createParser, type Dialect, renderCall } from 'tagcall/protocol';
import { median, now } from './measure.js';

const BODY = Array.from(
  { length: 400 },
  (_, i) => `  line ${i}: if (a < b && c) { return "</parameter>"; } // é`,
).join('\n');

const REPLIES: Array<{ format: string; dialect: Dialect; text: string }> = [
  {
    format: '`<tool>`',
    dialect: 'tagcall',
    text: renderCall({ toolName: 'write_file', arguments: { path: 'a.ts', content: BODY } }),
  },
  {
    format: 'Qwen3-Coder',
    dialect: 'qwen3-coder',
    text: `<tool_call>\n<function=write_file>\n<parameter=path>\na.ts\n</parameter>\n<parameter=content>\n${BODY}\n</parameter>\n</function>\n</tool_call>`,
  },
  {
    format: 'Hermes',
    dialect: 'hermes',
    text: `<tool_call>\n${JSON.stringify({ name: 'write_file', arguments: { path: 'a.ts', content: BODY } })}\n</tool_call>`,
  },
  {
    format: 'Anthropic XML',
    dialect: 'anthropic-xml',
    text: `<function_calls>\n<invoke name="write_file">\n<parameter name="path">a.ts</parameter>\n<parameter name="content">${BODY}</parameter>\n</invoke>\n</function_calls>`,
  },
];

export interface FirstDelta {
  format: string;
  bytes: number;
  /** Characters fed when the body's first argument-delta came. */
  chars: number;
  firstUs: number;
  wholeUs: number;
}

export function runFirstDelta(): FirstDelta[] {
  return REPLIES.map(({ format, dialect, text }) => {
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 4) chunks.push(text.slice(i, i + 4));
    const firsts: number[] = [];
    const wholes: number[] = [];
    let chars = -1;
    for (let run = 0; run < 25; run++) {
      let fed = 0;
      let first = -1;
      const t0 = now();
      const parser = createParser({
        dialect,
        onEvent: (e) => {
          if (e.type === 'argument-delta' && e.path.names[0] === 'content' && first < 0) {
            first = now() - t0;
            chars = fed;
          }
        },
      });
      for (const chunk of chunks) {
        fed += chunk.length;
        parser.feed(chunk);
      }
      parser.end();
      wholes.push(now() - t0);
      firsts.push(first);
    }
    // The first runs warm the JIT up: the medians are of the rest.
    return {
      format,
      bytes: text.length,
      chars,
      firstUs: median(firsts.slice(5)) * 1000,
      wholeUs: median(wholes.slice(5)) * 1000,
    };
  });
}
