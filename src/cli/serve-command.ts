import { type ProxyOptions, startProxy } from '../server/index.js';

/**
 * Runs the proxy until SIGINT or SIGTERM. The address goes to stderr as
 * `tagcall serve: listening on URL`, so a script (or a test) can read the port it got.
 */
export async function runServe(options: ProxyOptions): Promise<number> {
  const proxy = await startProxy(options);
  process.stderr.write(`tagcall serve: listening on ${proxy.url} (upstream ${options.upstream})\n`);
  await new Promise<void>((resolve) => {
    process.once('SIGINT', resolve);
    process.once('SIGTERM', resolve);
  });
  await proxy.close();
  return 0;
}
