/** One measurement in a fresh process: `child.ts SECTION [ARG] [FLAG]` (sections below). */
import { runAutoFlood } from './auto-flood.js';
import {
  runFeedCost,
  runJsonlLoad,
  runMemory,
  runPruning,
  runScaling,
  runThroughput,
  runTokenError,
} from './cases.js';
import { runCorpusReplies } from './corpus-replies.js';
import { runDask } from './dask.js';
import { runDialectCost } from './dialect-cost.js';
import { runFirstDelta } from './first-delta.js';
import { runHeadToHead } from './head-to-head.js';
import { runMining } from './mining.js';
import { runOpenParsers } from './open-parsers.js';
import { runProxyLoad } from './proxy-load.js';
import { type ReplyFormat, runReplies } from './reply-peers.js';
import { runSetupCost } from './setup-cost.js';
import { runConcurrentStores, runStores } from './stores.js';

const [section, arg, flag] = process.argv.slice(2);
const sections: Record<string, () => unknown> = {
  throughput: () => runThroughput(Number(arg)),
  scaling: () => runScaling(Number(arg), flag === 'reparse'),
  'feed-cost': runFeedCost,
  memory: runMemory,
  pruning: () => runPruning(Number(arg)),
  'jsonl-load': () => runJsonlLoad(Number(arg)),
  'token-error': runTokenError,
  'proxy-load': runProxyLoad,
  mining: runMining,
  dask: runDask,
  'first-delta': runFirstDelta,
  replies: () => runReplies(arg as ReplyFormat),
  'corpus-replies': () => runCorpusReplies(arg as ReplyFormat),
  setup: runSetupCost,
  dialects: () => runDialectCost(Number(arg)),
  stores: runStores,
  'concurrent-stores': runConcurrentStores,
  'auto-flood': runAutoFlood,
  'head-to-head': () => runHeadToHead(Number(arg)),
  'open-parsers': runOpenParsers,
};
const result = await (sections[section] ?? runMemory)();
process.stdout.write(`${JSON.stringify(result)}\n`);
