import { afterEach, describe, expect, it, vi } from 'vitest';
import { createParser, type ParserEvent } from '../src/index.js';
import { MarkupCore } from '../src/protocol/markup/core.js';
import { PartialToken } from '../src/protocol/partial-token.js';
import { MAX_NAME_LENGTH } from '../src/protocol/tag.js';

describe('PartialToken', () => {
  const named = (text: string): PartialToken => {
    const token = new PartialToken();
    token.tagName(text, 0);
    return token;
  };

  it('a tag name running to the end is continued by name characters only', () => {
    expect(named('<ser').continuedBy('ver_')).toBe(true);
    expect(named('<ser').continuedBy('ver>')).toBe(false);
    expect(named('<ser').continuedBy('v er')).toBe(false);
    expect(named('</a').continuedBy('b.c-d')).toBe(true);
  });

  it('after `</` the first character must begin a name, as the tag reader asks', () => {
    expect(named('</').continuedBy('ab')).toBe(true);
    expect(named('</').continuedBy('1b')).toBe(false);
  });

  it('counts what it took, up to the longest name read as a tag', () => {
    const token = named(`<${'a'.repeat(MAX_NAME_LENGTH - 3)}`);
    expect(token.continuedBy('aa')).toBe(true);
    // One more makes the name as long as the limit, where the tag reader decides it is text.
    expect(token.continuedBy('a')).toBe(false);
  });

  it('is no partial name where the text decides more than a name', () => {
    expect(named('<').continuedBy('ab')).toBe(false);
    expect(named('<a ').continuedBy('b')).toBe(false);
    expect(named('<1').continuedBy('b')).toBe(false);
    expect(named('<a>').continuedBy('b')).toBe(false);
  });

  it('a literal is continued by its next characters, never completed', () => {
    const token = new PartialToken();
    token.literal('</parameter>', 3);
    expect(token.continuedBy('ara')).toBe(true);
    expect(token.continuedBy('x')).toBe(false);
    expect(token.continuedBy('meter>')).toBe(false);
    expect(token.continuedBy('met')).toBe(true);
    expect(token.continuedBy('er>')).toBe(false);
  });

  it('cleared, it is continued by nothing', () => {
    const token = named('<ab');
    token.clear();
    expect(token.continuedBy('c')).toBe(false);
  });
});

describe('a block waiting on a partial token', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** How many times the block's reader ran for each chunk of `chunks`, and the events. */
  function runsPerChunk(dialect: 'tagcall' | 'qwen3-coder', chunks: readonly string[]) {
    const run = vi.spyOn(MarkupCore.prototype, 'run');
    const events: ParserEvent[] = [];
    const parser = createParser({ dialect, onEvent: (event) => events.push(event) });
    const runs = chunks.map((chunk) => {
      const before = run.mock.calls.length;
      parser.feed(chunk);
      return run.mock.calls.length - before;
    });
    parser.end();
    return { runs, events };
  }

  it('does not run the reader again for chunks that only continue a tag name', () => {
    const head = ['<tool>\n<server_name>local</server_name>\n<tool_name>read</tool_name>\n', '<a'];
    const name = ['rg', 'um', 'en', 'ts'];
    const tail = ['>\n<path>a.txt</path>\n</arguments>\n</tool>\n'];
    const { runs, events } = runsPerChunk('tagcall', [...head, ...name, ...tail]);
    expect(runs.slice(head.length, head.length + name.length)).toEqual([0, 0, 0, 0]);
    expect(runs[runs.length - 1]).toBeGreaterThan(0);
    const end = events.find((event) => event.type === 'tool-end');
    expect(end?.type === 'tool-end' && end.call.arguments).toEqual({ path: 'a.txt' });
  });

  it('does not run the reader again for chunks that only continue a literal close', () => {
    const head = ['<tool_call>\n<function=read>\n<parameter=path>\na.txt\n</'];
    const close = ['pa', 'ram', 'ete'];
    const tail = ['r>\n</function>\n</tool_call>'];
    const { runs, events } = runsPerChunk('qwen3-coder', [...head, ...close, ...tail]);
    expect(runs.slice(head.length, head.length + close.length)).toEqual([0, 0, 0]);
    const end = events.find((event) => event.type === 'tool-end');
    expect(end?.type === 'tool-end' && end.call.arguments).toEqual({ path: 'a.txt' });
  });

  it('runs the reader for a chunk that decides the tag: text where the name turned out no tag', () => {
    const head =
      '<tool>\n<server_name>local</server_name>\n<tool_name>t</tool_name>\n<arguments>\n<v>a <b';
    const { runs, events } = runsPerChunk('tagcall', [
      head,
      'cd',
      ' e',
      '</v>\n</arguments>\n</tool>',
    ]);
    expect(runs[1]).toBe(0);
    expect(runs[2]).toBeGreaterThan(0);
    const end = events.find((event) => event.type === 'tool-end');
    expect(end?.type === 'tool-end' && end.call.arguments).toEqual({ v: 'a <bcd e' });
  });
});
