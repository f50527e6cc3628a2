/**
 * The proxy under load: 200 concurrent streaming requests from a client in its own process,
 * straight to the replay model and through `tagcall serve`'s proxy, same reply both ways.
 */
import { startProxy, startReplayModel } from 'tagcall';
import {
  DIRECT,
  LOAD_CHUNK_SIZES,
  LOAD_REPLY,
  type LoadFigures,
  runLoadClient,
  VIA_PROXY,
} from '../test/support/proxy-load.js';

const CONCURRENT = 200;

export async function runProxyLoad(): Promise<{
  direct: LoadFigures;
  proxy: LoadFigures;
  rssMiB: number;
}> {
  const model = await startReplayModel({ replies: [LOAD_REPLY], chunkSizes: LOAD_CHUNK_SIZES });
  const proxy = await startProxy({ upstream: model.url });
  try {
    // Warm-up rounds, then the measured ones.
    await runLoadClient(model.url, CONCURRENT, DIRECT);
    await runLoadClient(proxy.url, CONCURRENT, VIA_PROXY);
    model.bodies.length = 0;
    const figures = {
      direct: await runLoadClient(model.url, CONCURRENT, DIRECT),
      proxy: await runLoadClient(proxy.url, CONCURRENT, VIA_PROXY),
    };
    return { ...figures, rssMiB: process.memoryUsage().rss / 2 ** 20 };
  } finally {
    await proxy.close();
    await model.close();
  }
}
