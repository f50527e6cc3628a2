/** One measurement in a fresh process: `child.ts throughput N | scaling KB [reparse] | feed-cost | memory`. */
import { runFeedCost, runMemory, runScaling, runThroughput } from './cases.js';

const [section, arg, flag] = process.argv.slice(2);
const result =
  section === 'throughput'
    ? runThroughput(Number(arg))
    : section === 'scaling'
      ? runScaling(Number(arg), flag === 'reparse')
      : section === 'feed-cost'
        ? runFeedCost()
        : runMemory();
process.stdout.write(`${JSON.stringify(result)}\n`);
