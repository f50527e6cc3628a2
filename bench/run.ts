/**
 * `npm run bench`: tagcall's parser against its peers on one deterministic corpus, then how
 * its cost scales with message size, per-feed latency, and memory. Prints Markdown tables
 * and writes them, with the raw numbers and a chart, to bench/results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { createParser, type ParserEvent, parse } from 'tagcall';
import { scalingChart } from './chart.js';
import { generateCorpus, generateMessage } from './corpus.js';
import { now, percentile, splitEvery, timeMedian, utf8Bytes } from './measure.js';
import * as peers from './peers.js';

const started = now();
const CORPUS_BYTES = 5_000_000;
const RESULTS = new URL('./results/', import.meta.url);
const out: string[] = [];
const log = (line = '') => {
  out.push(line);
  console.log(line);
};

const corpus = generateCorpus(CORPUS_BYTES);
const corpusBytes = utf8Bytes(corpus.messages);
const blockBytes = utf8Bytes(corpus.toolBlocks);
const chunked = (texts: readonly string[], size: number) =>
  texts.map((t) => (size === 0 ? [t] : splitEvery(t, size)));

function tagcallFeed(chunksPerMessage: readonly (readonly string[])[]): number {
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

interface Row {
  name: string;
  input: string;
  chunk: string;
  mbps: number;
  calls: number;
  expected: number;
  against?: string;
}
const rows: Row[] = [];
function measure(row: Omit<Row, 'mbps' | 'calls'>, bytes: number, work: () => number): Row {
  let calls = 0;
  const ms = timeMedian(() => {
    calls = work();
  });
  const done = { ...row, mbps: bytes / 1e6 / (ms / 1000), calls };
  rows.push(done);
  return done;
}

log(`# tagcall parser benchmark`);
log();
log(
  `Machine: ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
);
log(
  `Corpus: ${corpus.messages.length} messages, ${(corpusBytes / 1e6).toFixed(2)} MB, ${corpus.calls} tool calls ` +
    `(one per ${Math.round(corpusBytes / corpus.calls)} B); tool blocks alone ${(blockBytes / 1e6).toFixed(2)} MB.`,
);
log();

const whole = chunked(corpus.messages, 0);
const all = { input: 'full corpus', expected: corpus.calls };
const tagWhole = measure({ name: 'tagcall `parse`', chunk: 'whole', ...all }, corpusBytes, () =>
  tagcallParse(corpus.messages),
);
const tagBySize = new Map<number, Row>();
for (const size of [4, 16, 64, 1024]) {
  const chunks = chunked(corpus.messages, size);
  tagBySize.set(
    size,
    measure({ name: 'tagcall `feed`', chunk: `${size}`, ...all }, corpusBytes, () =>
      tagcallFeed(chunks),
    ),
  );
}
const tag4 = tagBySize.get(4) as Row;
const messages4 = chunked(corpus.messages, 4);
measure(
  {
    name: 'floor: `indexOf("<")` per chunk',
    chunk: '4',
    ...all,
    expected: Number.NaN,
    against: '4',
  },
  corpusBytes,
  () => peers.indexOfFloor(messages4),
);
const blocks = { input: 'tool blocks only', expected: corpus.calls };
for (const [size, label] of [
  [0, 'whole'],
  [4, '4'],
] as const) {
  const blockChunks = chunked(corpus.toolBlocks, size);
  measure({ name: 'sax (strict)', chunk: label, ...blocks }, blockBytes, () =>
    peers.saxStrict(blockChunks),
  );
  measure({ name: 'saxes', chunk: label, ...blocks }, blockBytes, () => peers.saxes(blockChunks));
  const messageChunks = size === 0 ? whole : messages4;
  measure({ name: 'htmlparser2 (xmlMode)', chunk: label, ...all }, corpusBytes, () =>
    peers.htmlparser2(messageChunks),
  );
}
measure({ name: 'fast-xml-parser per block', chunk: 'whole', ...blocks }, blockBytes, () =>
  peers.fastXmlParser(corpus.toolBlocks),
);
// Re-parsing per chunk is quadratic: it gets the first 100 KB of messages, or it would take hours.
const subset: string[] = [];
for (let bytes = 0; bytes < 100_000; bytes += subset[subset.length - 1].length)
  subset.push(corpus.messages[subset.length]);
const subsetCalls = tagcallParse(subset);
measure(
  {
    name: 're-parse per chunk (regex + fast-xml-parser)',
    input: 'first 100 KB',
    chunk: '4',
    expected: subsetCalls,
  },
  utf8Bytes(subset),
  () => peers.reparsePerChunk(chunked(subset, 4)),
);
measure({ name: 'sax (non-strict)', chunk: 'whole', ...all }, corpusBytes, () =>
  peers.saxLoose(corpus.messages),
);

log('## Throughput (median MB/s; × = how many times tagcall is faster at the same chunking)');
log();
log('| case | input | chunk | MB/s | × tagcall | calls found / written |');
log('|---|---|---|---:|---:|---:|');
for (const row of rows) {
  const reference = row.chunk === 'whole' ? tagWhole : (tagBySize.get(Number(row.chunk)) ?? tag4);
  const isTagcall = row.name.startsWith('tagcall');
  const ratio = isTagcall ? '' : `${(reference.mbps / row.mbps).toFixed(1)}×`;
  const found = Number.isNaN(row.expected) ? '' : `${row.calls} / ${row.expected}`;
  log(
    `| ${row.name} | ${row.input} | ${row.chunk} | ${row.mbps.toFixed(1)} | ${ratio} | ${found} |`,
  );
}
log();

log('## Scaling: one message streamed in 4-char chunks (median total ms)');
log();
const sizes = [10, 25, 50, 100, 200];
const scaling: Array<{ kb: number; tagcall: number; reparse: number | null }> = [];
let reparseOverBudget = false;
for (const kb of sizes) {
  const message = generateMessage(kb * 1000);
  const chunks = [splitEvery(message, 4)];
  const tagcallMs = timeMedian(() => tagcallFeed(chunks), 500, 5);
  let reparseMs: number | null = null;
  if (!reparseOverBudget) {
    reparseMs = timeMedian(() => peers.reparsePerChunk(chunks), 0, 1, 1);
    // Past 20 s a size, the next (2-4× larger, quadratic) would blow the five-minute budget.
    if (reparseMs > 20_000) reparseOverBudget = true;
  }
  scaling.push({ kb, tagcall: tagcallMs, reparse: reparseMs });
}
log('| message | tagcall ms | re-parse ms | re-parse / tagcall |');
log('|---:|---:|---:|---:|');
for (const s of scaling) {
  const re = s.reparse === null ? 'skipped (over budget)' : s.reparse.toFixed(1);
  const ratio = s.reparse === null ? '' : `${(s.reparse / s.tagcall).toFixed(0)}×`;
  log(`| ${s.kb} KB | ${s.tagcall.toFixed(2)} | ${re} | ${ratio} |`);
}
const at = (kb: number) => scaling.find((s) => s.kb === kb) as (typeof scaling)[number];
log();
log(`tagcall 200 KB / 100 KB: ${(at(200).tagcall / at(100).tagcall).toFixed(2)} (linear is 2.00).`);
log();

log('## Cost of one `feed` (4-char chunks, 100 KB message), by position in the message');
log();
const message100 = splitEvery(generateMessage(100_000), 4);
const perFeed: number[][] = [[], [], [], []];
for (let round = 0; round < 5; round++) {
  const parser = createParser({ onEvent: () => {} });
  message100.forEach((chunk, i) => {
    const t0 = process.hrtime.bigint();
    parser.feed(chunk);
    const ns = Number(process.hrtime.bigint() - t0);
    if (round > 0) perFeed[Math.floor((4 * i) / message100.length)].push(ns);
  });
  parser.end();
}
log('| quarter of the message | p50 ns | p99 ns | max ns |');
log('|---|---:|---:|---:|');
perFeed.forEach((times, q) => {
  const sorted = times.sort((a, b) => a - b);
  log(
    `| ${q + 1} | ${percentile(sorted, 50)} | ${percentile(sorted, 99)} | ${sorted[sorted.length - 1]} |`,
  );
});
log();

log('## Memory (5 MB corpus as one stream, 4-char chunks)');
log();
const gc = (globalThis as { gc?: () => void }).gc;
if (gc === undefined) {
  log('Run with --expose-gc (npm run bench does) to measure memory.');
} else {
  const stream = corpus.messages.join('\n\n');
  const chunks = splitEvery(stream, 4);
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  let calls = 0;
  const parser = createParser({
    onEvent: (event) => {
      if (event.type === 'tool-end') calls++;
    },
  });
  for (let i = 0; i < chunks.length; i++) {
    parser.feed(chunks[i]);
    if ((i & 1023) === 0) peak = Math.max(peak, process.memoryUsage().heapUsed);
  }
  parser.end();
  gc();
  const retained = process.memoryUsage().heapUsed - base;
  log('| measure | value |');
  log('|---|---:|');
  log(
    `| peak heap above baseline while streaming (sampled every 1024 feeds, no GC forced) | ${((peak - base) / 2 ** 20).toFixed(1)} MiB |`,
  );
  log(`| retained heap after \`end()\`, after GC | ${(retained / 2 ** 10).toFixed(1)} KiB |`);
  log(`| calls seen | ${calls} |`);
}
log();
log('Each throughput case runs at least 5 times and 1.5 s after a warm-up run; the median counts.');

mkdirSync(RESULTS, { recursive: true });
writeFileSync(new URL('latest.md', RESULTS), `${out.join('\n')}\n`);
writeFileSync(
  new URL('latest.json', RESULTS),
  `${JSON.stringify({ rows, scaling, when: new Date().toISOString() }, null, 2)}\n`,
);
writeFileSync(new URL('scaling.svg', RESULTS), scalingChart(scaling));
console.log(
  `\nwrote bench/results/latest.md, latest.json and scaling.svg in ${((now() - started) / 1000).toFixed(0)} s`,
);
