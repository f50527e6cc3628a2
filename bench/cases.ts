/**
 * What the benchmark measures. Each throughput case and each section runs in a child process
 * of its own (bench/child.ts): in one long-lived process every case paid for the garbage of
 * the cases before it, and tagcall's 4-char figure came out at half its isolated value.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  assistant,
  createJsonlStore,
  createMemory,
  createParser,
  estimate,
  exact,
  type Message,
  type ParserEvent,
  parse,
  system,
  toolResult,
  user,
} from 'tagcall';
import { type Corpus, generateCorpus, generateMessage, generateOneToolReplies } from './corpus.js';
import { median, now, percentile, splitEvery, timeMedian, timeOnce, utf8Bytes } from './measure.js';
import * as peers from './peers.js';

export const CORPUS_BYTES = 5_000_000;

const chunked = (texts: readonly string[], size: number) =>
  texts.map((t) => (size === 0 ? [t] : splitEvery(t, size)));

export function tagcallFeed(chunksPerMessage: readonly (readonly string[])[]): number {
  let calls = 0;
  const parser = createParser({
    onEvent: (event: ParserEvent) => {
      if (event.type === 'tool-end') calls++;
    },
  });
  for (const chunks of chunksPerMessage) {
    for (const chunk of chunks) parser.feed(chunk);
    parser.end();
  }
  return calls;
}

function tagcallParse(messages: readonly string[]): number {
  let calls = 0;
  for (const message of messages) calls += parse(message).calls.length;
  return calls;
}

/** The first messages of the corpus, about `bytes` long: for work too slow for all of it. */
function firstMessages(corpus: Corpus, bytes: number): string[] {
  const subset: string[] = [];
  for (let length = 0; length < bytes; length += subset[subset.length - 1].length) {
    subset.push(corpus.messages[subset.length]);
  }
  return subset;
}

export interface ThroughputCase {
  name: string;
  input:
    | 'full corpus'
    | 'tool blocks only'
    | 'first 100 KB'
    | 'full corpus, its calls in the dialect'
    | 'one tool, called in every reply';
  /** Characters per chunk, 0 for the whole text at once. */
  chunk: number;
  /** Prepares the input (outside the timing) and returns the work, which counts calls found. */
  prepare(corpus: Corpus): { bytes: number; expected: number; work: () => number };
}

/** A case over the messages or over the tool blocks alone, cut into `chunk`-character chunks. */
function chunkedCase(
  name: string,
  input: 'full corpus' | 'tool blocks only',
  chunk: number,
  run: (chunks: string[][]) => number,
  countsCalls = true,
): ThroughputCase {
  return {
    name,
    input,
    chunk,
    prepare(corpus) {
      const texts = input === 'full corpus' ? corpus.messages : corpus.toolBlocks;
      const chunks = chunked(texts, chunk);
      const expected = countsCalls ? corpus.calls : Number.NaN;
      return { bytes: utf8Bytes(texts), expected, work: () => run(chunks) };
    },
  };
}

const onCorpus = (
  name: string,
  chunk: number,
  run: (chunks: string[][]) => number,
  countsCalls = true,
) => chunkedCase(name, 'full corpus', chunk, run, countsCalls);
const onBlocks = (name: string, chunk: number, run: (chunks: string[][]) => number) =>
  chunkedCase(name, 'tool blocks only', chunk, run);

/** Replies that each call the one tool an agent has (generateOneToolReplies), not the corpus. */
const onOneTool = (
  name: string,
  chunk: number,
  run: (chunks: string[][]) => number,
): ThroughputCase => ({
  name,
  input: 'one tool, called in every reply',
  chunk,
  prepare() {
    const replies = generateOneToolReplies(ONE_TOOL_BYTES);
    const chunks = chunked(replies.messages, chunk);
    return { bytes: utf8Bytes(replies.messages), expected: replies.calls, work: () => run(chunks) };
  },
});

const ONE_TOOL_BYTES = 1_000_000;

export const CASES: ThroughputCase[] = [
  {
    name: 'tagcall `parse` (folded result)',
    input: 'full corpus',
    chunk: 0,
    prepare: (corpus) => ({
      bytes: utf8Bytes(corpus.messages),
      expected: corpus.calls,
      work: () => tagcallParse(corpus.messages),
    }),
  },
  onCorpus('tagcall `feed` (events)', 0, tagcallFeed),
  ...[4, 16, 64, 1024].map((size) => onCorpus('tagcall `feed` (events)', size, tagcallFeed)),
  onCorpus('floor: one `indexOf("<")` per chunk', 4, peers.indexOfFloor, false),
  onBlocks('sax (strict)', 0, peers.saxStrict),
  onBlocks('sax (strict)', 4, peers.saxStrict),
  onBlocks('saxes', 0, peers.saxes),
  onBlocks('saxes', 4, peers.saxes),
  onBlocks('saxes', 64, peers.saxes),
  onCorpus('htmlparser2 (xmlMode)', 0, peers.htmlparser2),
  onCorpus('htmlparser2 (xmlMode)', 4, peers.htmlparser2),
  onCorpus('htmlparser2 (xmlMode)', 64, peers.htmlparser2),
  onOneTool('tagcall `feed` (events)', 0, tagcallFeed),
  onOneTool('tagcall `feed` (events)', 4, tagcallFeed),
  onOneTool('htmlparser2 (xmlMode)', 0, peers.htmlparser2),
  onOneTool('htmlparser2 (xmlMode)', 4, peers.htmlparser2),
  {
    name: 'fast-xml-parser per block',
    input: 'tool blocks only',
    chunk: 0,
    prepare: (corpus) => ({
      bytes: utf8Bytes(corpus.toolBlocks),
      expected: corpus.calls,
      work: () => peers.fastXmlParser(corpus.toolBlocks),
    }),
  },
  {
    name: 're-parse per chunk (regex + fast-xml-parser)',
    input: 'first 100 KB',
    chunk: 4,
    prepare(corpus) {
      // Quadratic: on the whole corpus it would take hours.
      const subset = firstMessages(corpus, 100_000);
      const chunks = chunked(subset, 4);
      return {
        bytes: utf8Bytes(subset),
        expected: tagcallParse(subset),
        work: () => peers.reparsePerChunk(chunks),
      };
    },
  },
  {
    name: 'sax (non-strict), for its call count',
    input: 'full corpus',
    chunk: 0,
    prepare: (corpus) => ({
      bytes: utf8Bytes(corpus.messages),
      expected: corpus.calls,
      work: () => peers.saxLoose(corpus.messages),
    }),
  },
];

export function runThroughput(index: number) {
  const corpus = generateCorpus(CORPUS_BYTES);
  const { bytes, expected, work } = CASES[index].prepare(corpus);
  let calls = 0;
  const ms = timeMedian(() => {
    calls = work();
  });
  return {
    mbps: bytes / 1e6 / (ms / 1000),
    calls,
    expected: Number.isNaN(expected) ? null : expected,
  };
}

export const SCALING_KB = [10, 25, 50, 100, 200];

/** One message of `kb` KB streamed in 4-char chunks: tagcall, and the re-parse pattern once. */
export function runScaling(kb: number, withReparse: boolean) {
  const chunks = [splitEvery(generateMessage(kb * 1000), 4)];
  const tagcall = timeMedian(() => tagcallFeed(chunks), 1000, 15);
  const reparse = withReparse ? timeOnce(() => peers.reparsePerChunk(chunks)) : null;
  return { kb, tagcall, reparse };
}

/** Nanoseconds of each `feed` over a 100 KB message in 4-char chunks, by quarter of the message. */
export function runFeedCost() {
  const chunks = splitEvery(generateMessage(100_000), 4);
  const quarters: number[][] = [[], [], [], []];
  for (let round = 0; round < 6; round++) {
    const parser = createParser({ onEvent: () => {} });
    chunks.forEach((chunk, i) => {
      const t0 = process.hrtime.bigint();
      parser.feed(chunk);
      const ns = Number(process.hrtime.bigint() - t0);
      if (round > 0) quarters[Math.floor((4 * i) / chunks.length)].push(ns);
    });
    parser.end();
  }
  return quarters.map((times) => {
    const sorted = times.sort((a, b) => a - b);
    return {
      p50: percentile(sorted, 50),
      p99: percentile(sorted, 99),
      max: sorted[sorted.length - 1],
    };
  });
}

/** Peak heap while streaming the corpus as one stream in 4-char chunks, and what the parser keeps after. */
export function runMemory() {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('run with --expose-gc');
  const chunks = splitEvery(generateCorpus(CORPUS_BYTES).messages.join('\n\n'), 4);
  let calls = 0;
  const onEvent = (event: ParserEvent) => {
    if (event.type === 'tool-end') calls++;
  };
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  let parser: ReturnType<typeof createParser> | null = createParser({ onEvent });
  for (let i = 0; i < chunks.length; i++) {
    parser.feed(chunks[i]);
    if ((i & 1023) === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  parser.end();
  gc();
  // What the parser still holds after the stream: the heap with it, less the heap without it.
  const withParser = process.memoryUsage().heapUsed;
  parser = null;
  gc();
  return {
    peakBytes: peak - base,
    retainedBytes: withParser - process.memoryUsage().heapUsed,
    calls,
  };
}

/** A conversation of `count` messages: users, replies, and calls with their results. */
function conversation(count: number): Message[] {
  const messages: Message[] = [system('You are a coding agent.')];
  for (let n = 0; messages.length < count; n++) {
    messages.push(user(`Question ${n}: why does the parser hold back a < b?`));
    const id = `c${n}`;
    messages.push(
      assistant('Let me look.', { id, toolName: 'read_file', arguments: { path: `src/f${n}.ts` } }),
    );
    messages.push(toolResult(id, 'read_file', `export const value${n} = ${'x'.repeat(n % 400)};`));
    messages.push(assistant(`The answer for ${n} is in the file.`));
  }
  return messages.slice(0, count);
}

/** Median ms of computing the window of a fresh memory (each message counted once). */
export async function runPruning(count: number) {
  const history = conversation(count);
  const times: number[] = [];
  for (let round = 0; round < 7; round++) {
    const memory = createMemory({ budget: 8000 });
    memory.add(...history);
    const t0 = now();
    await memory.messages();
    times.push(now() - t0);
  }
  return { count, ms: median(times.slice(2)) };
}

/** Milliseconds to load a thread of `count` messages from its JSONL file. */
export async function runJsonlLoad(count: number) {
  const dir = mkdtempSync(join(tmpdir(), 'tagcall-bench-'));
  try {
    const store = createJsonlStore({ dir });
    for (const message of conversation(count)) await store.append('bench', message);
    const times: number[] = [];
    for (let round = 0; round < 5; round++) {
      const t0 = now();
      await store.load('bench');
      times.push(now() - t0);
    }
    return { count, ms: median(times), bytes: statSync(join(dir, 'bench.jsonl')).size };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const SAMPLES: Record<string, string> = {
  prose: generateCorpus(60_000, 3)
    .messages.join('\n\n')
    .replace(/<tool>[\s\S]*?<\/tool>/g, ''),
  code: generateCorpus(60_000, 4)
    .toolBlocks.join('\n')
    .replace(/<[^>]+>/g, ''),
  json: JSON.stringify(conversation(300), null, 2),
  cjk: '日本語のテキストはトークン数が多くなりがちです。中文文本的标记数量也很多。한국어 텍스트도 마찬가지입니다。'.repeat(
    200,
  ),
};

/** The characters/4 estimate against exact counts, per kind of text. */
export async function runTokenError() {
  const out: Array<{
    kind: string;
    chars: number;
    estimate: number;
    cl100k: number;
    o200k: number;
  }> = [];
  const cl100k = await exact('cl100k_base');
  const o200k = await exact('o200k_base');
  for (const [kind, text] of Object.entries(SAMPLES)) {
    out.push({
      kind,
      chars: text.length,
      estimate: estimate.count(text),
      cl100k: cl100k.count(text),
      o200k: o200k.count(text),
    });
  }
  return out;
}
