/**
 * What the benchmark measures. Each throughput case and each section runs in a child process
 * of its own (bench/child.ts): in one long-lived process every case paid for the garbage of
 * the cases before it, and tagcall's 4-char figure came out at half its isolated value.
 */
import { createParser, type ParserEvent, parse } from 'tagcall';
import { type Corpus, generateCorpus, generateMessage } from './corpus.js';
import { percentile, splitEvery, timeMedian, timeOnce, utf8Bytes } from './measure.js';
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
  input: 'full corpus' | 'tool blocks only' | 'first 100 KB';
  /** Characters per chunk, 0 for the whole text at once. */
  chunk: number;
  /** Prepares the input (outside the timing) and returns the work, which counts calls found. */
  prepare(corpus: Corpus): { bytes: number; expected: number; work: () => number };
}

function onCorpus(
  name: string,
  chunk: number,
  run: (chunks: string[][]) => number,
  countsCalls = true,
): ThroughputCase {
  return {
    name,
    input: 'full corpus',
    chunk,
    prepare(corpus) {
      const chunks = chunked(corpus.messages, chunk);
      const expected = countsCalls ? corpus.calls : Number.NaN;
      return { bytes: utf8Bytes(corpus.messages), expected, work: () => run(chunks) };
    },
  };
}

function onBlocks(
  name: string,
  chunk: number,
  run: (chunks: string[][]) => number,
): ThroughputCase {
  return {
    name,
    input: 'tool blocks only',
    chunk,
    prepare(corpus) {
      const chunks = chunked(corpus.toolBlocks, chunk);
      return {
        bytes: utf8Bytes(corpus.toolBlocks),
        expected: corpus.calls,
        work: () => run(chunks),
      };
    },
  };
}

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
  onCorpus('htmlparser2 (xmlMode)', 0, peers.htmlparser2),
  onCorpus('htmlparser2 (xmlMode)', 4, peers.htmlparser2),
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
