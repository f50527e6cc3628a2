import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createParser,
  DIALECT_VALUES,
  type Dialect,
  type ParseOptions,
  type ParserEvent,
} from './support/all.js';
import { ALL_DIALECTS, dialectInputs, optionsOf, replyIn } from './support/dialect-inputs.js';
import { documentArbitrary } from './support/documents.js';
import { type FoldedEvent, foldEvents } from './support/event-sequence.js';
import { createParser as createLegacyParser } from './support/legacy-protocol/parser.js';

/** The folded events of one whole feed, by the new engine or the frozen one, and its warnings. */
function read(text: string, options: ParseOptions, legacy: boolean) {
  const events: ParserEvent[] = [];
  const make = legacy ? createLegacyParser : createParser;
  const parser = make({ ...options, onEvent: (e: ParserEvent) => events.push(e) } as never);
  parser.feed(text);
  parser.end();
  const messages = events.flatMap((e) =>
    e.type === 'warning' || e.type === 'error' ? [e.message] : [],
  );
  return { folded: foldEvents(events), messages };
}

const whole = (text: string, options: ParseOptions, legacy: boolean) =>
  read(text, options, legacy).folded;

/**
 * Differences meant by the rewrite, each with its reason, as what they change in the event
 * sequences: the old sequence (and, for a normalization, the new one too) so changed must
 * equal the new one. Each has an example that shows it.
 */
const MEANT: ReadonlyArray<{
  name: string;
  /**
   * How the events are changed; or, for a change of reading, `skip` says which inputs it is,
   * by the warnings the new engine gives them.
   */
  adjust: (events: FoldedEvent[], options: ParseOptions) => FoldedEvent[];
  skip?: (messages: readonly string[], text: string) => boolean;
  /** The change is a normalization of both sequences (what is meant to differ is set aside). */
  both?: true;
  example: { text: string; options: ParseOptions };
}> = [
  {
    // #25: the JSON family (JSON, Python calls, Gemma's bodies) is read by one engine whose
    // events are meant to differ: calls of a block end in order, each owning its own text;
    // values stream as read; repairs are the reader's own. So these dialects are compared by
    // what they read: the calls, the text, the thinking, and which warnings and errors.
    name: 'the JSON family compared by what it reads',
    both: true,
    adjust: (events, options) => (isJsonFamily(options) ? [reading(events)] : events),
    example: {
      text: '<tool_call>[{"name": "a", "arguments": {}}, {"name": "b", "arguments": {}}]</tool_call>',
      options: { dialect: 'hermes' },
    },
  },
  {
    // After arguments written outside `<arguments>`, the call's own children are read as such
    // (a `<tool_name>`, a new `<tool>`), where the old parser read them as more arguments, and
    // the mistake is warned about once a call: both are compared up to that mistake.
    name: 'the call goes on after arguments written outside <arguments>',
    both: true,
    adjust: (events) => {
      const at = events.findIndex(
        (e) => e.type === 'warning' && e.code === 'argument-outside-arguments',
      );
      return at === -1 ? events : events.slice(0, at + 1);
    },
    example: {
      text: '<tool>\n<tool_name>f</tool_name>\n<a>1</a>\n<tool_name>g</tool_name>\n</tool>\n',
      options: {},
    },
  },
  {
    // One rule for every dialect: an unclosed block is pointed at where it began (the old
    // markup dialects but `<tool>` pointed at the end of the input).
    name: 'incomplete-tool-call points at the block',
    both: true,
    adjust: (events) =>
      events.map((e) =>
        e.type === 'error' && e.code === 'incomplete-tool-call' ? { ...e, offset: -1 } : e,
      ),
    example: {
      text: '<tool_call>\n<function=f>\n<parameter=a>\nx',
      options: { dialect: 'qwen3-coder' },
    },
  },
  {
    // #25: a value's decided text goes out before a warning decided after it, and a repeated
    // parameter is warned about where it begins (the old markup dialects but `<tool>` told an
    // unclosed parameter before its text, and a repeat once it had ended, when fed whole).
    // Their place within the call is set aside; the same warnings must be there.
    name: "a call's warnings where they are decided",
    both: true,
    adjust: (events, options) =>
      (options.dialect ?? 'tagcall') === 'tagcall' ? events : warningsAtCallEnd(events),
    example: {
      text: '<tool_call>\n<function=f>\n<parameter=city>\nDallas\n<parameter=state>\nTX\n</parameter>\n</function>\n</tool_call>',
      options: { dialect: 'qwen3-coder' },
    },
  },
  {
    // Text between a call's parameters is warned about in every dialect (`stray-text`, once a
    // call), as it was in `<tool>`: the old markup dialects passed over it silently.
    name: 'stray text warned about in every dialect',
    both: true,
    adjust: (events, options) =>
      (options.dialect ?? 'tagcall') === 'tagcall'
        ? events
        : refold(events.filter((e) => !(e.type === 'warning' && e.code === 'stray-text'))),
    example: {
      text: '<tool_call>\n<function=f>\nnote\n<parameter=a>1</parameter>\n</function>\n</tool_call>',
      options: { dialect: 'qwen3-coder' },
    },
  },
  {
    // #25: a new block's opening inside a block left open ends that block (its complete calls
    // are calls, with `unclosed-element`); the old markup dialects read it as the open
    // value's or call's text, swallowing the next block's calls.
    name: 'a new block ends a block left open',
    adjust: (events) => events,
    skip: (messages) =>
      messages.some((m) => /ends at the next <(?!parameter|function=|invoke|arg_key)/.test(m)),
    example: {
      text: '<tool_call>\n<function=a>\n<parameter=x>\n1\n</parameter>\n<tool_call>\n<function=b>\n</function>\n</tool_call>\n',
      options: { dialect: 'qwen3-coder' },
    },
  },
  {
    // #25: text between GLM's `</arg_key>` and `<arg_value>` no longer drops the argument.
    name: 'glm reads an argument past stray text',
    adjust: (events) => events,
    skip: (messages) =>
      messages.some((m) => /between <\/arg_key> and <arg_value>|escapes stand between/.test(m)),
    example: {
      text: '<tool_call>f\n<arg_key>k</arg_key> = <arg_value>v</arg_value>\n</tool_call>',
      options: { dialect: 'glm' },
    },
  },
  {
    // A call that fails is never offered: the text of its values streamed before it failed
    // at the end of the input may reach further now (it is still the same on every chunking).
    name: "a failed call's deltas set aside",
    both: true,
    adjust: (events) => {
      const failed = new Set(
        events.flatMap((e) => (e.type === 'error' && e.callId ? [e.callId] : [])),
      );
      return refold(events.filter((e) => !(e.type === 'argument-delta' && failed.has(e.id))));
    },
    example: {
      text: '<read_file>\n<path>null</path>\n<</path>/read_file>\n',
      options: { dialect: 'cline', toolNames: ['read_file'] },
    },
  },
  {
    // A parameter's close counts only when a tag follows it: the old Cline reader took any
    // `name>` after it for a tag (it read a tag from the character after the one it was at).
    name: 'only a tag confirms a close',
    adjust: (events) => events,
    skip: (_messages, text) => /<\/[\w.:-]+>\s*[A-Za-z_:][\w.:-]*[ \t]*\/?>/.test(text),
    example: {
      text: '<read_file>\n<<arg_key>path</arg_key>command>1</command>\n</read_file>\n[thinking]\n',
      options: { dialect: 'cline', toolNames: ['read_file'] },
    },
  },
  {
    // The reader repairs what a model clearly meant, in one pass; jsonrepair's guesses at what
    // is no JSON (unquoted text as a value, a tag inside JSON, a key with no colon) made calls
    // of garbage (`"content": <x>null` read as the string "<x>null"): those are errors now.
    name: 'what is no JSON is no call',
    adjust: (events) => events,
    skip: (messages) =>
      messages.some((m) =>
        /cannot begin with|is no value|is not followed by|stands where a comma|write the tool's name after|followed by more than|invalid escape|is no number/.test(
          m,
        ),
      ),
    example: {
      text: '<tool_call>\n{"name": "f", "arguments": {"a": <x>null}}\n</tool_call>\n',
      options: { dialect: 'hermes' },
    },
  },
  {
    // #25: a Python string is read by Python's rules (`'Martha\\'s'`, `"say \\"hi\\""`); the old
    // reader broke such strings at their escaped quotes. And a harmony message's header ends at
    // its own `<|message|>`, never at the next message's.
    name: 'escaped quotes in Python strings, harmony headers',
    adjust: (events) => events,
    skip: (messages, text) =>
      /\\["']/.test(text) ||
      // An escape that means nothing is kept as written (Python's rule; jsonrepair dropped it).
      /\\[^"'\\/nrtbfvxuUa0\n]/.test(text) ||
      messages.some((m) => m.startsWith('a harmony header ends')),
    example: {
      text: "[get_weather(city='Martha\\'s Vineyard', metric='\\\"cool units\\\"')]\n",
      options: { dialect: 'llama4' },
    },
  },
  {
    // A special token of the model's vocabulary cannot stand inside a JSON string: a body's
    // special-token close (`<|END_ACTION|>`, `<|tool_call_end|>`) ends it wherever it stands,
    // as DeepSeek's always did; a string it cuts is cut short.
    name: 'special-token closes end a body anywhere',
    adjust: (events) => events,
    skip: (messages) => messages.some((m) => m.includes("cut short by the block's close")),
    example: {
      text: '<|START_ACTION|>[{"tool_name": "a<|END_ACTION|>", "parameters": {}}]<|END_ACTION|>\n',
      options: { dialect: 'command-r7b' },
    },
  },
  {
    // A call is named by a name: an empty `<tool_name>` gives no `tool-name` event.
    name: 'no tool-name for an empty name',
    adjust: (events) => events.filter((e) => !(e.type === 'tool-name' && e.toolName === '')),
    example: { text: '<tool>\n<tool_name></tool_name>\n</tool>\n', options: {} },
  },
];

const isJsonFamily = (options: ParseOptions) =>
  options.dialect === 'auto' ||
  (options.dialect !== undefined &&
    options.dialect !== 'tagcall' &&
    DIALECT_VALUES[options.dialect] !== 'text');

/** Warnings whose rules the one reader changed: repairs are its own, and it says more of them. */
const READER_WARNINGS = new Set([
  'repaired-json',
  'inexact-number',
  'stray-text',
  'duplicate-field',
]);

/**
 * What a sequence of events reads, as one summary entry: the calls, the text, the thinking,
 * the other warnings, and whether anything failed (a broken body's error code may differ: the
 * reader says what is wrong, where the old parse said what it found missing).
 */
function reading(events: FoldedEvent[]): FoldedEvent {
  const summary = {
    calls: events.flatMap((e) => {
      if (e.type !== 'tool-end') return [];
      const call = e.call as { toolName: string; arguments: unknown; format: string };
      return [{ toolName: call.toolName, arguments: call.arguments, format: call.format }];
    }),
    text: events.map((e) => (e.type === 'text' ? e.text : '')).join(''),
    thinking: events.map((e) => (e.type === 'thinking-delta' ? e.text : '')).join(''),
    warnings: events
      .flatMap((e) => (e.type === 'warning' && !READER_WARNINGS.has(e.code) ? [e.code] : []))
      .sort(),
    failed: events.some((e) => e.type === 'error'),
  };
  return { type: 'text', text: JSON.stringify(summary) };
}

/** Each call's warnings moved to just before its end (or its error), in their order. */
function warningsAtCallEnd(events: FoldedEvent[]): FoldedEvent[] {
  const held = new Map<string, FoldedEvent[]>();
  const out: FoldedEvent[] = [];
  for (const e of events) {
    if (e.type === 'warning' && e.callId !== undefined) {
      held.set(e.callId, [...(held.get(e.callId) ?? []), e]);
      continue;
    }
    const id = e.type === 'tool-end' ? e.id : e.type === 'error' ? e.callId : undefined;
    if (id !== undefined) {
      out.push(...(held.get(id) ?? []));
      held.delete(id);
    }
    out.push(e);
  }
  for (const rest of held.values()) out.push(...rest);
  return refold(out);
}

/** Adjacent deltas of one target merged again, as foldEvents does. */
function refold(events: FoldedEvent[]): FoldedEvent[] {
  const out: FoldedEvent[] = [];
  for (const e of events) {
    const last = out[out.length - 1];
    if (
      last !== undefined &&
      last.type === 'argument-delta' &&
      e.type === 'argument-delta' &&
      last.id === e.id &&
      last.path === e.path
    )
      out[out.length - 1] = { ...last, text: last.text + e.text };
    else out.push(e);
  }
  return out;
}

/**
 * The two engines' readings of `text`, with the meant differences applied: equal when the new
 * engine reads it as the old one did but for them. Null when a meant change of reading applies.
 */
function reconcile(text: string, options: ParseOptions) {
  const { folded, messages } = read(text, options, false);
  if (MEANT.some((m) => m.skip?.(messages, text))) return null;
  let now = folded;
  let before = whole(text, options, true);
  // Where the old parse of a JSON-family body had to guess (it repaired, or it failed), the
  // one reader's own rules decide now: only what the old parse read as written is compared.
  if (
    isJsonFamily(options) &&
    before.some((e) => e.type === 'error' || (e.type === 'warning' && e.code === 'repaired-json'))
  )
    return null;
  for (const meant of MEANT) {
    if (JSON.stringify(now) === JSON.stringify(before)) break;
    before = meant.adjust(before, options);
    if (meant.both) now = meant.adjust(now, options);
  }
  return { now, before };
}

describe('the new engine reads as the old one did, but for the differences meant (#25)', () => {
  const compare = (text: string, options: ParseOptions) => {
    const pair = reconcile(text, options);
    if (pair !== null) expect(pair.now).toEqual(pair.before);
  };

  for (const input of dialectInputs())
    it(input.name, () => {
      compare(input.text, input.options);
    });

  for (const dialect of ALL_DIALECTS)
    it(`${dialect}: generated replies`, () => {
      const written: Dialect = dialect === 'auto' ? 'anthropic-xml' : dialect;
      fc.assert(
        fc.property(replyIn(written), (text) => {
          compare(text, optionsOf(dialect));
        }),
        { numRuns: 500 },
      );
    });

  it('generated documents of the <tool> protocol', () => {
    fc.assert(
      fc.property(documentArbitrary, (text) => {
        compare(text, {});
      }),
      { numRuns: 2000 },
    );
  });

  for (const meant of MEANT)
    it(`meant: ${meant.name}`, () => {
      const { text, options } = meant.example;
      expect(whole(text, options, false)).not.toEqual(whole(text, options, true));
      if (meant.skip !== undefined) {
        expect(meant.skip(read(text, options, false).messages, text)).toBe(true);
        return;
      }
      const pair = reconcile(text, options);
      expect(pair?.now).toEqual(pair?.before);
    });
});
