/**
 * `npm run bench`: tagcall's parser against its peers on one deterministic corpus, then how
 * its cost scales with message size, per-feed latency, and memory. Each measurement runs in
 * a fresh child process. Prints Markdown tables and writes them, with the raw numbers and a
 * chart, to bench/results/.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { fileURLToPath } from 'node:url';
import { CONFORMANCE_DOC, writeConformance } from '../test/support/conformance.js';
import type { FloodRow } from './auto-flood.js';
import { CASES, CORPUS_BYTES, SCALING_KB } from './cases.js';
import { scalingChart } from './chart.js';
import { generateCorpus } from './corpus.js';
import { CORPUS_REPLY_FORMATS, type CorpusReplyRow } from './corpus-replies.js';
import { type DaskFigures, daskTables, daskTargets } from './dask.js';
import { DIALECT_COST_CHUNKS, type DialectCostRow } from './dialect-cost.js';
import type { FirstDelta } from './first-delta.js';
import type { HeadToHead } from './head-to-head.js';
import { median, now, utf8Bytes } from './measure.js';
import { FILING_BYTES, type OpenParserRow } from './open-parsers.js';
import { REPLY_FORMATS, type ReplyRow } from './reply-peers.js';
import type { SetupRow } from './setup-cost.js';
import { type ConcurrentRow, storeTables } from './stores.js';

const started = now();
const RESULTS = new URL('./results/', import.meta.url);
const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));
const out: string[] = [];
const log = (line = '') => {
  out.push(line);
  console.log(line);
};

function child<T>(...args: string[]): T {
  const stdout = execFileSync(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', CHILD, ...args],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return JSON.parse(stdout.trim().split('\n').pop() as string) as T;
}

const corpus = generateCorpus(CORPUS_BYTES);
const corpusBytes = utf8Bytes(corpus.messages);
log('# tagcall parser benchmark');
log();
log(
  `Machine: ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}.`,
);
log(
  `Corpus: ${corpus.messages.length} messages, ${(corpusBytes / 1e6).toFixed(2)} MB, ${corpus.calls} tool calls ` +
    `(one per ${Math.round(corpusBytes / corpus.calls)} B); tool blocks alone ${(utf8Bytes(corpus.toolBlocks) / 1e6).toFixed(2)} MB.`,
);
log();

type Measured = { mbps: number; calls: number; expected: number | null };
/**
 * Each case runs in this many processes, in rounds over all the cases, and the median of
 * their medians counts: on this VM one process of a case ran up to 2× slower than another
 * (a whole process at a time), so one process a case made the peers' ratios a lottery.
 */
const ROUNDS = Number(process.env.TAGCALL_BENCH_ROUNDS ?? 3);
const rounds: Measured[][] = CASES.map(() => []);
for (let round = 0; round < ROUNDS; round++)
  CASES.forEach((_, i) => {
    rounds[i].push(child<Measured>('throughput', String(i)));
  });
const rows = CASES.map((c, i) => {
  const mbps = rounds[i].map((m) => m.mbps);
  /** `spread`: the slowest and fastest process. */
  return {
    ...c,
    ...rounds[i][0],
    mbps: median(mbps),
    spread: [Math.min(...mbps), Math.max(...mbps)],
  };
});
/**
 * The one agent tool's replies are an input of their own: their rows are compared with each
 * other. The corpus rows are compared with the peers on the corpus or on its tool blocks.
 */
const ONE_TOOL = 'one tool, called in every reply';
const comparable = (a: string, b: string) => a === b || (a !== ONE_TOOL && b !== ONE_TOOL);
const tagcall = (chunk: number, input = 'full corpus') =>
  rows.find(
    (r) => r.name.startsWith('tagcall `feed`') && r.chunk === chunk && r.input === input,
  ) as (typeof rows)[number];
/** The XML parsers tagcall is compared with (not the floor, not the re-parse strawman). */
const PEERS = ['sax (strict)', 'saxes', 'htmlparser2', 'fast-xml-parser'];
const isPeer = (name: string) => PEERS.some((p) => name.startsWith(p));
const bestPeerRow = (chunk: number, input: string) =>
  rows
    .filter((r) => isPeer(r.name) && r.chunk === chunk && comparable(r.input, input))
    .reduce<(typeof rows)[number] | null>(
      (best, r) => (best && best.mbps >= r.mbps ? best : r),
      null,
    );
log(
  '## Throughput (median MB/s of UTF-8 input; tagcall × = how many times faster tagcall `feed` is at the same chunking; × best peer = this row against the fastest XML parser measured at its chunking)',
);
log();
log('| case | input | chunk | MB/s | spread | tagcall × | × best peer | calls found / written |');
log('|---|---|---|---:|---:|---:|---:|---:|');
for (const row of rows) {
  const isTagcall = row.name.startsWith('tagcall');
  const input = row.input === ONE_TOOL ? ONE_TOOL : 'full corpus';
  const reference = tagcall(row.chunk, input) ?? tagcall(4);
  const ratio = row.name.startsWith('tagcall') ? '' : `${(reference.mbps / row.mbps).toFixed(1)}×`;
  const peer = bestPeerRow(row.chunk, row.input);
  const vsPeer =
    isTagcall && peer !== null ? `${(row.mbps / peer.mbps).toFixed(2)}× (${peer.name})` : '';
  const found = row.expected === null ? '' : `${row.calls} / ${row.expected}`;
  log(
    `| ${row.name} | ${row.input} | ${row.chunk === 0 ? 'whole' : row.chunk} | ${row.mbps.toFixed(1)} | ${row.spread.map((v) => v.toFixed(0)).join('–')} | ${ratio} | ${vsPeer} | ${found} |`,
  );
}
log();

/**
 * `feed` against htmlparser2 as #42 measures it: a fresh parser per reply on both sides, CPU
 * time, taken in turn over batches of 16 replies; three processes a chunking, the median ratio.
 */
const HEAD_TO_HEAD_CHUNKS = [4, 64, 0];
const headToHead = HEAD_TO_HEAD_CHUNKS.map((chunk) => {
  const runs = [0, 1, 2].map(() => child<HeadToHead>('head-to-head', String(chunk)));
  const ratios = runs.map((run) => run.ratio);
  return {
    chunk,
    tagcall: median(runs.map((run) => run.tagcall)),
    htmlparser2: median(runs.map((run) => run.htmlparser2)),
    ratio: median(ratios),
    range: [Math.min(...ratios), Math.max(...ratios)],
    calls: runs[0].calls,
  };
});
log(
  '## Head to head with htmlparser2: a fresh parser per reply, CPU time, taken in turn (median MB/s; × = tagcall / htmlparser2)',
);
log();
log(
  "Both read every reply of the corpus, each with a parser of its own, in batches of 16 replies taken in turn (the order swapped each batch), so that the machine's other load falls on both alike; 4 passes after one to warm up, in 3 processes a chunking. htmlparser2 (xmlMode) only counts `</tool>` closes; tagcall emits every event.",
);
log();
log(
  '| chunk | tagcall MB/s | htmlparser2 MB/s | × | range | calls found (tagcall / htmlparser2 / written) |',
);
log('|---|---:|---:|---:|---:|---:|');
for (const r of headToHead)
  log(
    `| ${r.chunk === 0 ? 'whole' : r.chunk} | ${r.tagcall.toFixed(1)} | ${r.htmlparser2.toFixed(1)} | ${r.ratio.toFixed(2)}× | ${r.range.map((v) => v.toFixed(2)).join('–')} | ${r.calls.tagcall} / ${r.calls.htmlparser2} / ${r.calls.written} |`,
  );
log();

/**
 * Three processes a format, the median of each cell: one process's figure for a whole reply
 * (tens of µs) swung up to 2.5× with where its collections fell.
 */
const replyRows = REPLY_FORMATS.flatMap((format) => {
  const runs = [0, 1, 2].map(() => child<ReplyRow[]>('replies', format));
  return runs[0].map((row, i) => {
    const cell = (key: 'tagcall' | 'peer' | 'tagcallMiddleware' | 'peerMiddleware') =>
      median(runs.map((run) => run[i][key]));
    return {
      ...row,
      tagcall: cell('tagcall'),
      peer: cell('peer'),
      tagcallMiddleware: cell('tagcallMiddleware'),
      peerMiddleware: cell('peerMiddleware'),
    };
  });
});
log(
  '## Replies as a server sees them: a fresh parser each, tagcall against @ai-sdk-tool/parser 4.1.26 (median µs a reply; × = how many times faster tagcall is)',
);
log();
log(
  "Three replies a format (a short call, a file write after a sentence, two calls), written by the peer's own `formatToolCall`. Bare: tagcall `createParser` against the peer's `createStreamParser` (a web stream, as its middleware uses it). Middleware: `tagcallMiddleware` against the peer's middleware for the format, around a model that streams the reply, `transformParams` included.",
);
log();
log('| format | chunk | tagcall | peer | × | tagcallMiddleware | peer middleware | × |');
log('|---|---|---:|---:|---:|---:|---:|---:|');
for (const r of replyRows)
  log(
    `| ${r.format} | ${r.chunk === 0 ? 'whole' : r.chunk} | ${r.tagcall.toFixed(1)} | ${r.peer.toFixed(1)} | ${(r.peer / r.tagcall).toFixed(1)}× | ${r.tagcallMiddleware.toFixed(1)} | ${r.peerMiddleware.toFixed(1)} | ${(r.peerMiddleware / r.tagcallMiddleware).toFixed(1)}× |`,
  );
log();

/**
 * Whole replies of the corpus, a few KB each, in three processes a format (the median of each
 * cell): the three short replies above hide what a reply's own text costs the peer.
 */
const corpusReplyRows = CORPUS_REPLY_FORMATS.map((format) => {
  const runs = [0, 1, 2].map(() => child<CorpusReplyRow>('corpus-replies', format));
  const cell = (key: 'tagcall' | 'peer' | 'tagcallMiddleware' | 'peerMiddleware') =>
    median(runs.map((run) => run[key]));
  return {
    ...runs[0],
    tagcall: cell('tagcall'),
    peer: cell('peer'),
    tagcallMiddleware: cell('tagcallMiddleware'),
    peerMiddleware: cell('peerMiddleware'),
  };
});
log(
  "## Realistic replies: the corpus' replies whole, tagcall against @ai-sdk-tool/parser (median µs a reply)",
);
log();
log(
  `The first ${corpusReplyRows[0].replies} messages of the corpus that hold calls and are at most 8 KB, their calls written as the family's template writes them (\`renderCallIn\`), each whole in a fresh stream; the tools typed by their calls. Bare and middleware as above.`,
);
log();
log(
  '| format | replies | mean chars | calls | tagcall | peer | × | tagcallMiddleware | peer middleware | × |',
);
log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of corpusReplyRows)
  log(
    `| ${r.format} | ${r.replies} | ${r.meanChars} | ${r.calls} | ${r.tagcall.toFixed(1)} | ${r.peer.toFixed(1)} | ${(r.peer / r.tagcall).toFixed(2)}× | ${r.tagcallMiddleware.toFixed(1)} | ${r.peerMiddleware.toFixed(1)} | ${(r.peerMiddleware / r.tagcallMiddleware).toFixed(2)}× |`,
  );
log();

/** How many of the floods the table shows, the worst first. */
const WORST_FLOODS = 8;
const floodRows = child<FloodRow[]>('auto-flood');
const [issueFlood, ...floods] = floodRows;
const worstFloods = [...floods].sort((a, b) => b.ratio - a.ratio);
log('## `auto` on hostile text: a flood of one marker in 1–4-character chunks (median CPU ms)');
log();
log(
  `Every family's markers as its declaration writes them, each repeated in a line and as lines of their own: ${floods.length} floods of ${(floods[0].length / 1024).toFixed(0)} KiB. \`auto\` against the slowest single dialect on the same flood (× = auto / it, the median of rounds taken in turn); the issue's own case first, then the ${WORST_FLOODS} worst.`,
);
log();
log('| flood | KiB | auto ms | slowest dialect | its ms | × |');
log('|---|---:|---:|---|---:|---:|');
for (const r of [issueFlood, ...worstFloods.slice(0, WORST_FLOODS)])
  log(
    `| \`${JSON.stringify(r.unit).slice(1, -1)}\` | ${(r.length / 1024).toFixed(0)} | ${r.auto.toFixed(1)} | ${r.slowestDialect} | ${r.slowest.toFixed(1)} | ${r.ratio.toFixed(2)}× |`,
  );
if (issueFlood.named !== undefined)
  log(
    `\nThe issue's flood in \`${issueFlood.named.dialect}\` alone: ${issueFlood.named.ms.toFixed(1)} ms (\`auto\` ${(issueFlood.auto / issueFlood.named.ms).toFixed(2)}× it).`,
  );
log();

const setupRows = child<SetupRow[]>('setup');
log('## Set-up: a fresh parser, and a fresh parser reading one short call fed whole (median µs)');
log();
log(
  "What a server pays per request before the text itself: `createParser`, then `feed` of one short call in the format and `end()`. `auto` knows every family's opening and reads the Hermes call.",
);
log();
log('| dialect | call written as | `createParser` µs | with one short call µs |');
log('|---|---|---:|---:|');
for (const r of setupRows)
  log(`| ${r.dialect} | ${r.format} | ${r.create.toFixed(2)} | ${r.createAndCall.toFixed(2)} |`);
log();

const openParserRows = child<OpenParserRow[]>('open-parsers');
log('## Memory per open parser: heap bytes a parser holds in the middle of a call');
log();
log(
  "5,000 parsers alive at once, each fed the first half of a short call in its dialect's format (its block open, a value streaming), after a full collection; against the same measure of the build #42 was filed on (803024c).",
);
log();
log('| dialect | bytes | at the filing | × |');
log('|---|---:|---:|---:|');
for (const r of openParserRows)
  log(
    `| ${r.dialect} | ${r.bytes.toFixed(0)} | ${FILING_BYTES[r.dialect]} | ${(r.bytes / FILING_BYTES[r.dialect]).toFixed(2)} |`,
  );
log();

/**
 * Three processes a chunking, in rounds: the ratio to `<tool>` is taken within each process
 * (its families share its stretch of time), and the median of the three counts. One process
 * alone read the slowest family anywhere from 1.37× to 1.52× of `<tool>` whole on one day.
 */
const DIALECT_PROCESSES = 3;
const dialectRuns = DIALECT_COST_CHUNKS.map((): DialectCostRow[][] => []);
for (let round = 0; round < DIALECT_PROCESSES; round++)
  DIALECT_COST_CHUNKS.forEach((chunk, c) => {
    dialectRuns[c].push(child<DialectCostRow[]>('dialects', String(chunk)));
  });
/** A family at one chunking: median MB/s, and its ratio to `<tool>` (median, slowest process, fastest). */
const dialectRows = dialectRuns.flatMap((runs) =>
  runs[0].map((row, i) => {
    const ratios = runs.map((run) => {
      const tool = run.find((r) => r.dialect === 'tagcall') as DialectCostRow;
      return tool.mbps / run[i].mbps;
    });
    return {
      ...row,
      mbps: median(runs.map((run) => run[i].mbps)),
      ratio: median(ratios),
      ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    };
  }),
);
type DialectRow = (typeof dialectRows)[number];
const dialectAt = (dialect: string, chunk: number) =>
  dialectRows.find((r) => r.dialect === dialect && r.chunk === chunk) as DialectRow;
const ratioCell = (r: DialectRow) =>
  `${r.ratio.toFixed(2)} | ${r.ratioRange.map((v) => v.toFixed(2)).join('–')}`;
log(
  "## Each dialect against `<tool>`: the corpus with its calls in the family's own format (median MB/s; × = how many times `<tool>`'s speed)",
);
log();
log(
  `Every call of the corpus written as \`renderCallIn\` writes it for the family (its chat template), the prose left as it is; one parser a dialect, a message a stream, all dialects timed in interleaved rounds in one process, in ${DIALECT_PROCESSES} processes a chunking. × is the median of the processes' ratios; "range", the lowest and highest.`,
);
log();
log('| dialect | whole MB/s | × | range | 4-char MB/s | × | range | calls found / written |');
log('|---|---:|---:|---:|---:|---:|---:|---:|');
for (const whole of dialectRows.filter((r) => r.chunk === 0)) {
  const four = dialectAt(whole.dialect, 4);
  log(
    `| ${whole.dialect} | ${whole.mbps.toFixed(0)} | ${ratioCell(whole)} | ${four.mbps.toFixed(1)} | ${ratioCell(four)} | ${whole.calls} / ${whole.expected} |`,
  );
}
log();

type Scaling = { kb: number; tagcall: number; reparse: number | null };
const scaling: Scaling[] = [];
let reparse = true;
for (const kb of SCALING_KB) {
  const point = child<Scaling>('scaling', String(kb), reparse ? 'reparse' : '');
  scaling.push(point);
  // Past 20 s a size, the next (2× larger, quadratic) would blow the five-minute budget.
  if (point.reparse !== null && point.reparse > 20_000) reparse = false;
}
log('## Scaling: one message streamed in 4-char chunks (median total ms)');
log();
log('| message | tagcall ms | tagcall MB/s | re-parse ms | re-parse / tagcall |');
log('|---:|---:|---:|---:|---:|');
for (const s of scaling) {
  const re = s.reparse === null ? 'skipped (over budget)' : s.reparse.toFixed(1);
  const ratio = s.reparse === null ? '' : `${(s.reparse / s.tagcall).toFixed(0)}×`;
  log(
    `| ${s.kb} KB | ${s.tagcall.toFixed(2)} | ${(s.kb / s.tagcall).toFixed(1)} | ${re} | ${ratio} |`,
  );
}
const at = (kb: number) => scaling.find((s) => s.kb === kb) as Scaling;
log();
log(`tagcall 200 KB / 100 KB: ${(at(200).tagcall / at(100).tagcall).toFixed(2)} (linear is 2.00).`);
log();

const quarters = child<Array<{ p50: number; p99: number; max: number }>>('feed-cost');
log('## Cost of one `feed` (4-char chunks, 100 KB message), by position in the message');
log();
log('| quarter of the message | p50 ns | p99 ns | max ns |');
log('|---|---:|---:|---:|');
quarters.forEach((q, i) => {
  log(`| ${i + 1} | ${q.p50} | ${q.p99} | ${q.max} |`);
});
log();

const firstDeltas = child<FirstDelta[]>('first-delta');
log('## Time to the first argument-delta (a 20 KB file body, 4-char chunks, median of 20)');
log();
log(
  '| format | reply chars | chars fed before the first delta | µs to it | µs for the whole reply |',
);
log('|---|---:|---:|---:|---:|');
for (const f of firstDeltas)
  log(
    `| ${f.format} | ${f.bytes.toLocaleString('en')} | ${f.chars} | ${f.firstUs.toFixed(0)} | ${f.wholeUs.toFixed(0)} |`,
  );
log();

const memory = child<{ peakBytes: number; retainedBytes: number; calls: number }>('memory');
log('## Memory (the 5 MB corpus as one stream, 4-char chunks)');
log();
log('| measure | value |');
log('|---|---:|');
log(
  `| peak heap above baseline while streaming (sampled every 1024 feeds, no GC forced) | ${(memory.peakBytes / 2 ** 20).toFixed(1)} MiB |`,
);
log(
  `| heap held by the parser after \`end()\` (with it less without it, after GC) | ${(memory.retainedBytes / 2 ** 10).toFixed(1)} KiB |`,
);
log(`| calls seen | ${memory.calls} |`);
log();
type Pruning = { count: number; ms: number };
const pruning = [1_000, 10_000, 100_000].map((count) => child<Pruning>('pruning', String(count)));
log('## Memory: computing the window (budget 8,000 tokens, estimate counter, median ms)');
log();
log('| messages | ms | µs per message |');
log('|---:|---:|---:|');
for (const p of pruning)
  log(
    `| ${p.count.toLocaleString('en')} | ${p.ms.toFixed(2)} | ${((1000 * p.ms) / p.count).toFixed(2)} |`,
  );
const load = child<{ count: number; ms: number; bytes: number }>('jsonl-load', '100000');
log();
log(
  `Loading a ${load.count.toLocaleString('en')}-message JSONL thread (${(load.bytes / 2 ** 20).toFixed(1)} MiB): ${load.ms.toFixed(0)} ms.`,
);
log();
type TokenError = { kind: string; chars: number; estimate: number; cl100k: number; o200k: number };
const tokenErrors = child<TokenError[]>('token-error');
log('## Token estimate (characters / 4) against exact counts');
log();
log('| text | characters | estimate | cl100k_base | o200k_base | estimate error vs o200k |');
log('|---|---:|---:|---:|---:|---:|');
for (const t of tokenErrors) {
  const error = ((100 * (t.estimate - t.o200k)) / t.o200k).toFixed(0);
  log(
    `| ${t.kind} | ${t.chars} | ${t.estimate} | ${t.cl100k} | ${t.o200k} | ${Number(error) > 0 ? '+' : ''}${error}% |`,
  );
}
log();

type ProxyLoad = typeof import('./proxy-load.js') extends {
  runProxyLoad(): Promise<infer R>;
}
  ? R
  : never;
const proxyLoad = child<ProxyLoad>('proxy-load');
log('## `tagcall serve` under load (200 concurrent streams, 10 KB tool argument each)');
log();
log(
  '| path | completed / valid | requests/s | p50 ms | p99 ms | first byte p99 ms | ms per chunk p99 |',
);
log('|---|---:|---:|---:|---:|---:|---:|');
for (const [name, f] of [
  ['replay model directly (text only)', proxyLoad.direct],
  ['through the proxy (native tool_calls)', proxyLoad.proxy],
] as const)
  log(
    `| ${name} | ${f.completed} / ${f.valid} | ${f.requestsPerSecond.toFixed(0)} | ${f.p50Ms.toFixed(0)} | ${f.p99Ms.toFixed(0)} | ${f.firstByteP99Ms.toFixed(0)} | ${f.perChunkP99Ms.toFixed(2)} |`,
  );
log();
log(
  `Overhead per chunk (p99 of each stream's time / its chunks): ${(proxyLoad.proxy.perChunkP99Ms - proxyLoad.direct.perChunkP99Ms).toFixed(2)} ms; ` +
    `the client runs in its own process; model and proxy share one (RSS after: ${proxyLoad.rssMiB.toFixed(0)} MiB).`,
);
log();

type Mining = typeof import('./mining.js') extends { runMining(): Promise<infer R> } ? R : never;
const mining = child<Mining>('mining');
log(
  `## \`tagcall parse\` over a ${mining.mb} MB JSONL log (8 files, OpenAI request bodies, NDJSON out)`,
);
log();
log('| run | seconds | MB/s | CPU seconds | CPU × of --jobs 1 | peak RSS MiB |');
log('|---|---:|---:|---:|---:|---:|');
for (const [name, run] of [
  ['--jobs 1', mining.jobs1],
  ['--jobs 2', mining.jobs2],
] as const)
  log(
    `| ${name} | ${run.seconds.toFixed(1)} | ${run.mbps.toFixed(1)} | ${run.cpuSeconds.toFixed(1)} | ${(run.cpuSeconds / mining.jobs1.cpuSeconds).toFixed(2)} | ${run.peakRssMiB.toFixed(0)} |`,
  );
log();
log(
  `Peak RSS with --jobs 1 over ${mining.small.mb} MB: ${mining.small.peakRssMiB.toFixed(0)} MiB; over ${mining.mb} MB: ${mining.jobs1.peakRssMiB.toFixed(0)} MiB.`,
);
log();

const dask = child<DaskFigures>('dask');
for (const line of daskTables(dask)) log(line);
log();

type Stores = typeof import('./stores.js') extends { runStores(): Promise<infer R> } ? R : never;
const stores = child<Stores>('stores');
const concurrentStores = child<ConcurrentRow[]>('concurrent-stores');
for (const line of storeTables(stores, concurrentStores)) log(line);

/** Milliseconds to import `entry` in a fresh Node process (median of 7). */
function coldImport(entry: string): number {
  const times = Array.from({ length: 7 }, () =>
    Number(
      execFileSync(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `const t = performance.now(); await import(${JSON.stringify(entry)}); console.log(performance.now() - t);`,
        ],
        { encoding: 'utf8' },
      ),
    ),
  ).sort((a, b) => a - b);
  return times[3];
}
const imports = ['tagcall', 'tagcall/protocol', 'tagcall/agent', 'tagcall/server'].map((entry) => ({
  entry,
  ms: coldImport(entry),
}));
log('## Cold import (median ms of 7 fresh processes)');
log();
log('| entry | ms |');
log('|---|---:|');
for (const { entry, ms } of imports) log(`| \`${entry}\` | ${ms.toFixed(0)} |`);
log();
log(
  'The MCP SDK loads when a server is first connected, not on import; `tagcall/protocol` imports nothing.',
);
log();

const byName = (prefix: string, chunk: number) =>
  rows
    .filter((r) => r.name.startsWith(prefix) && r.chunk === chunk && r.input !== ONE_TOOL)
    .reduce((best, r) => Math.max(best, r.mbps), 0);
const bestPeer = (chunk: number) => Math.max(...PEERS.map((p) => byName(p, chunk)));
const feedRatio = at(200).tagcall / at(100).tagcall;
const p99s = quarters.map((q) => q.p99);
const targets: Array<[string, string, boolean]> = [
  ['≥ 40 MB/s at 4-char chunks', `${tagcall(4).mbps.toFixed(1)} MB/s`, tagcall(4).mbps >= 40],
  ['≥ 200 MB/s at 64-char chunks', `${tagcall(64).mbps.toFixed(1)} MB/s`, tagcall(64).mbps >= 200],
  [
    '≥ 450 MB/s whole-string',
    `${tagcall(0).mbps.toFixed(1)} MB/s (\`feed\`), ${rows[0].mbps.toFixed(1)} MB/s (\`parse\`)`,
    tagcall(0).mbps >= 450,
  ],
  [
    'ahead of htmlparser2 on the full corpus at 4-char chunks',
    `${(tagcall(4).mbps / byName('htmlparser2', 4)).toFixed(2)}×`,
    tagcall(4).mbps > byName('htmlparser2', 4),
  ],
  [
    `\`tagcall parse\` ≥ 120 MB/s on one core over the ${mining.mb} MB log`,
    `${mining.jobs1.mbps.toFixed(1)} MB/s`,
    mining.jobs1.mbps >= 120,
  ],
  [
    '≥ 3× the best peer at 4-char chunks',
    `${(tagcall(4).mbps / bestPeer(4)).toFixed(2)}×`,
    tagcall(4).mbps >= 3 * bestPeer(4),
  ],
  [
    '≥ 10× the best peer whole-string',
    `${(tagcall(0).mbps / bestPeer(0)).toFixed(2)}×`,
    tagcall(0).mbps >= 10 * bestPeer(0),
  ],
  ...headToHead.map((r): [string, string, boolean] => {
    const goal = r.chunk === 4 ? 1.3 : r.chunk === 64 ? 2 : 3;
    return [
      `≥ ${goal}× htmlparser2 ${r.chunk === 0 ? 'whole' : `at ${r.chunk}-char chunks`}, a fresh parser per reply, CPU time in turn`,
      `${r.ratio.toFixed(2)}× (${r.range.map((v) => v.toFixed(2)).join('–')})`,
      r.ratio >= goal,
    ];
  }),
  ['200 KB ≤ 2× the time of 100 KB', feedRatio.toFixed(2), feedRatio <= 2],
  (() => {
    const slowest = setupRows.reduce((a, b) => (b.createAndCall > a.createAndCall ? b : a));
    return [
      '`createParser` + a short call ≤ 3 µs (every dialect of the set-up table)',
      `slowest ${slowest.dialect}, ${slowest.createAndCall.toFixed(1)} µs`,
      slowest.createAndCall <= 3,
    ] as [string, string, boolean];
  })(),
  ...(['bare', 'middleware'] as const).map((path): [string, string, boolean] => {
    const ratios = replyRows.map((r) =>
      path === 'bare' ? r.peer / r.tagcall : r.peerMiddleware / r.tagcallMiddleware,
    );
    const least = Math.min(...ratios);
    return [
      `≥ 3× @ai-sdk-tool/parser on every reply format and chunking (${path === 'bare' ? 'bare parser' : 'through the AI SDK middleware'})`,
      `least ${least.toFixed(1)}×`,
      least >= 3,
    ];
  }),
  [
    'p99 `feed` flat across the message (largest / smallest quarter ≤ 2)',
    (Math.max(...p99s) / Math.min(...p99s)).toFixed(2),
    Math.max(...p99s) <= 2 * Math.min(...p99s),
  ],
  [
    'memory: window cost linear (µs per message, 100k vs 1k, ≤ 2×)',
    `${(pruning[2].ms / pruning[2].count / (pruning[0].ms / pruning[0].count)).toFixed(2)}`,
    pruning[2].ms / pruning[2].count <= (2 * pruning[0].ms) / pruning[0].count,
  ],
  [
    'mining: peak RSS does not grow with input (large / small ≤ 1.5)',
    `${(mining.jobs1.peakRssMiB / mining.small.peakRssMiB).toFixed(2)}`,
    mining.jobs1.peakRssMiB <= 1.5 * mining.small.peakRssMiB,
  ],
  ...daskTargets(dask),
  ...DIALECT_COST_CHUNKS.map((chunk): [string, string, boolean] => {
    const rowsAt = dialectRows.filter((r) => r.chunk === chunk);
    const slowest = rowsAt.reduce((a, b) => (b.ratio > a.ratio ? b : a));
    return [
      `every dialect within 1.3× of \`<tool>\` (${chunk === 0 ? 'whole' : `${chunk}-char chunks`})`,
      `slowest ${slowest.dialect}, ${slowest.ratio.toFixed(2)}× (${slowest.ratioRange.map((v) => v.toFixed(2)).join('–')})`,
      slowest.ratio <= 1.3,
    ];
  }),
  ...firstDeltas.map((f): [string, string, boolean] => [
    `${f.format}: first argument-delta of a 20 KB value within the first 300 characters`,
    `${f.chars}`,
    f.chars >= 0 && f.chars <= 300,
  ]),
  (() => {
    const pool = concurrentStores.find((r) => r.store.includes('(default)'));
    return [
      "PostgreSQL (default pool): 64 concurrent writers ≥ 5× one writer's durable appends a second",
      pool === undefined
        ? 'not run: PostgreSQL is not installed'
        : `${(pool.manyWriters / pool.oneWriter).toFixed(1)}×`,
      pool !== undefined && pool.manyWriters >= 5 * pool.oneWriter,
    ] as [string, string, boolean];
  })(),
  (() => {
    const worst = openParserRows.reduce((a, b) =>
      b.bytes / FILING_BYTES[b.dialect] > a.bytes / FILING_BYTES[a.dialect] ? b : a,
    );
    const ratio = worst.bytes / FILING_BYTES[worst.dialect];
    return [
      "memory per open parser no larger than at #42's filing (every dialect of the table)",
      `most ${worst.dialect}, ${ratio.toFixed(2)}×`,
      ratio <= 1,
    ] as [string, string, boolean];
  })(),
  [
    'retained heap after the stream ≤ 1 MB',
    `${(memory.retainedBytes / 2 ** 10).toFixed(0)} KiB`,
    memory.retainedBytes <= 2 ** 20,
  ],
];
targets.push(
  ...(['bare', 'middleware'] as const).map((path): [string, string, boolean] => {
    const ratios = corpusReplyRows.map((r) =>
      path === 'bare' ? r.peer / r.tagcall : r.peerMiddleware / r.tagcallMiddleware,
    );
    return [
      `≥ 3× @ai-sdk-tool/parser on the corpus' replies whole, Hermes and Qwen3-Coder (${path === 'bare' ? 'bare parser' : 'through the AI SDK middleware'})`,
      ratios.map((r) => `${r.toFixed(2)}×`).join(', '),
      Math.min(...ratios) >= 3,
    ];
  }),
  [
    '`auto` within 2× of the slowest single dialect on every flood shape',
    `worst ${worstFloods[0].ratio.toFixed(2)}× (\`${JSON.stringify(worstFloods[0].unit).slice(1, -1)}\`)`,
    Math.max(worstFloods[0].ratio, issueFlood.ratio) <= 2,
  ],
);
log('## Targets');
log();
log('| target | measured | met |');
log('|---|---:|:---:|');
for (const [target, measured, met] of targets)
  log(`| ${target} | ${measured} | ${met ? 'yes' : '**no**'} |`);
log();
log(
  `Each throughput case runs in ${ROUNDS} processes, in rounds over all the cases: in each, 3 warm-up runs, then at least 5 runs and 1.5 s. The median of the processes' medians counts; "spread" is the slowest and the fastest process.`,
);

mkdirSync(RESULTS, { recursive: true });
writeFileSync(new URL('latest.md', RESULTS), `${out.join('\n')}\n`);
const raw = {
  rows,
  replyRows,
  corpusReplyRows,
  floodRows,
  setupRows,
  dialectRows,
  scaling,
  quarters,
  memory,
  pruning,
  load,
  tokenErrors,
  proxyLoad,
  mining,
  dask,
  stores,
  concurrentStores,
  imports,
  when: new Date().toISOString(),
};
writeFileSync(new URL('latest.json', RESULTS), `${JSON.stringify(raw, null, 2)}\n`);
writeFileSync(new URL('scaling.svg', RESULTS), scalingChart(scaling));
// docs/benchmarks.md shows the last run: the tables go between its bench markers.
const readmeUrl = new URL('../docs/benchmarks.md', import.meta.url);
const readme = readFileSync(readmeUrl, 'utf8');
const marked = /(<!-- bench:start -->\n)[\s\S]*?(<!-- bench:end -->)/;
const tables = out.slice(1).join('\n').trim();
writeFileSync(
  readmeUrl,
  readme.replace(marked, (_, start, end) => `${start}${tables}\n${end}`),
);
// The conformance table is no timing, but the bench is the run that rewrites the docs' figures.
writeConformance();
console.log(`wrote ${CONFORMANCE_DOC}`);
console.log(
  `\nwrote bench/results/latest.md, latest.json and scaling.svg (and docs/benchmarks.md's tables) in ${((now() - started) / 1000).toFixed(0)} s`,
);
