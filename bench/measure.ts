/** Timing helpers: plain `process.hrtime`, medians over repeated runs, no timing in tests. */

export function now(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Runs `work` three times to warm up (the JIT and the heap settle: the first runs here are
 * up to 2× slower), then again until `minRuns` runs and `budgetMs` have passed (at most
 * `maxRuns`); returns the median milliseconds of one run.
 */
export function timeMedian(work: () => void, budgetMs = 1500, minRuns = 5, maxRuns = 50): number {
  // Start each case from a collected heap, so one case's garbage is not billed to the next.
  (globalThis as { gc?: () => void }).gc?.();
  for (let i = 0; i < 3; i++) work();
  const times: number[] = [];
  const started = now();
  while (times.length < maxRuns && (times.length < minRuns || now() - started < budgetMs)) {
    const t0 = now();
    work();
    times.push(now() - t0);
  }
  return median(times);
}

/** Milliseconds of a single run, for work too slow to repeat. */
export function timeOnce(work: () => void): number {
  const t0 = now();
  work();
  return now() - t0;
}

export function splitEvery(text: string, size: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks;
}

export function utf8Bytes(texts: readonly string[]): number {
  let bytes = 0;
  for (const text of texts) bytes += Buffer.byteLength(text);
  return bytes;
}
