/**
 * What a server pays per request before any text: a fresh `createParser` and one short call
 * fed whole, for the dialects a server is set to most, `auto` (which knows every family's
 * opening) among them. Each a median over batches of 2,000, after a warm-up.
 */
import { createParser, type Dialect } from 'tagcall/protocol';
import { median, now } from './measure.js';

const SHORT_CALLS: Partial<Record<Dialect, string>> = {
  tagcall:
    '<tool><server_name>fs</server_name><tool_name>read_file</tool_name><arguments><path>src/index.ts</path></arguments></tool>',
  hermes: '<tool_call>\n{"name": "read_file", "arguments": {"path": "src/index.ts"}}\n</tool_call>',
  'qwen3-coder':
    '<tool_call>\n<function=read_file>\n<parameter=path>\nsrc/index.ts\n</parameter>\n</function>\n</tool_call>',
  'gpt-oss':
    '<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>{"path":"src/index.ts"}<|call|>',
};

export interface SetupRow {
  dialect: Dialect | 'auto';
  /** The call is written in this dialect's format (`auto` reads Hermes'). */
  format: Dialect;
  /** Median µs for `createParser` alone, and with the call fed and `end()`. */
  create: number;
  createAndCall: number;
}

const BATCH = 2000;

function perParser(work: () => void): number {
  for (let i = 0; i < BATCH * 3; i++) work();
  const times: number[] = [];
  for (let round = 0; round < 15; round++) {
    const t0 = now();
    for (let i = 0; i < BATCH; i++) work();
    times.push(((now() - t0) * 1000) / BATCH);
  }
  return median(times);
}

export function runSetupCost(): SetupRow[] {
  const cases: [Dialect | 'auto', Dialect][] = [
    ['tagcall', 'tagcall'],
    ['hermes', 'hermes'],
    ['qwen3-coder', 'qwen3-coder'],
    ['gpt-oss', 'gpt-oss'],
    ['auto', 'hermes'],
  ];
  return cases.map(([dialect, format]) => {
    const text = SHORT_CALLS[format] as string;
    let calls = 0;
    const onEvent = (event: { type: string }) => {
      if (event.type === 'tool-end') calls++;
    };
    const create = perParser(() => createParser({ dialect, onEvent }));
    calls = 0;
    const createAndCall = perParser(() => {
      const parser = createParser({ dialect, onEvent });
      parser.feed(text);
      parser.end();
    });
    if (calls === 0) throw new Error(`${dialect} read no call in ${format}'s format`);
    return { dialect, format, create, createAndCall };
  });
}
