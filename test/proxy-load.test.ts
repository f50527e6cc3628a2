import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { startProxy, startReplayModel } from './support/all.js';
import { LOAD_CHUNK_SIZES, LOAD_REPLY, runLoadClient, VIA_PROXY } from './support/proxy-load.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const heapAfterGc = () => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

const CONCURRENT = 200;

describe('proxy under load (bounded)', () => {
  it(`${CONCURRENT} concurrent streams all complete with valid arguments; the heap goes back down`, async () => {
    const model = await startReplayModel({ replies: [LOAD_REPLY], chunkSizes: LOAD_CHUNK_SIZES });
    const proxy = await startProxy({ upstream: model.url });
    try {
      const round = async () => {
        expect(await runLoadClient(proxy.url, CONCURRENT, VIA_PROXY)).toEqual(
          expect.objectContaining({ completed: CONCURRENT, valid: CONCURRENT }),
        );
        model.bodies.length = 0; // the replay server's record of requests, not the proxy's memory
      };
      // The first round at full concurrency grows the connection pools (about 1.5 MB, kept
      // while their sockets live); the baseline is taken after it.
      await round();
      const baseline = heapAfterGc();
      await round();
      await round();
      // 400 more streams of 10 KB each: keeping even one copy of each would be 4 MB and more.
      expect(heapAfterGc() - baseline).toBeLessThan(1024 * 1024);
    } finally {
      await proxy.close();
      await model.close();
    }
  });
});
