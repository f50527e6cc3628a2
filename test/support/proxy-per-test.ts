// A test's replay model and the proxy in front of it, closed after the test that started them.
import { afterEach } from 'vitest';
import type { ReplayModel } from '../../src/agent/index.js';
import type { RunningProxy } from '../../src/server/index.js';

/**
 * Registers the hook (in the file, or the describe it is called in) and returns where a test
 * puts the replay model and the proxy it starts; after the test the proxy is closed, then the
 * model, and both are forgotten.
 */
export function proxyAndModelPerTest() {
  const running: { model?: ReplayModel; proxy?: RunningProxy } = {};
  afterEach(async () => {
    await running.proxy?.close();
    await running.model?.close();
    running.proxy = running.model = undefined;
  });
  return running;
}
