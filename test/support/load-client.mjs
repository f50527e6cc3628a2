// A load client in a process of its own, so the server's memory is measured without it.
// Usage: node load-client.mjs URL CONCURRENCY '{"request": {...}, "expectArguments": {...}}'
// Prints one JSON line: how many streams completed and were valid, and their timings.
import { createParser } from 'eventsource-parser';

const [url, concurrency, spec] = process.argv.slice(2);
const { request, expectArguments } = JSON.parse(spec);

async function one() {
  const start = performance.now();
  const response = await fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ ...request, stream: true }),
  });
  let firstByte = 0;
  let chunks = 0;
  let finish = null;
  const calls = [];
  const sse = createParser({
    onEvent(event) {
      if (event.data === '[DONE]') return;
      chunks++;
      const choice = JSON.parse(event.data).choices?.[0];
      for (const t of choice?.delta?.tool_calls ?? []) {
        calls[t.index] ??= '';
        calls[t.index] += t.function?.arguments ?? '';
      }
      finish = choice?.finish_reason ?? finish;
    },
  });
  const decoder = new TextDecoder();
  for await (const bytes of response.body) {
    if (firstByte === 0) firstByte = performance.now() - start;
    sse.feed(decoder.decode(bytes, { stream: true }));
  }
  let valid = response.ok;
  if (expectArguments !== undefined) {
    try {
      valid &&= finish === 'tool_calls' && calls.length === 1;
      valid &&= JSON.stringify(JSON.parse(calls[0])) === JSON.stringify(expectArguments);
    } catch {
      valid = false;
    }
  }
  return { valid, ms: performance.now() - start, firstByte, chunks };
}

const p = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
const started = performance.now();
const results = await Promise.all(Array.from({ length: Number(concurrency) }, one));
const duration = performance.now() - started;
const ms = results.map((r) => r.ms).sort((a, b) => a - b);
const firstBytes = results.map((r) => r.firstByte).sort((a, b) => a - b);
const perChunk = results.map((r) => r.ms / Math.max(1, r.chunks)).sort((a, b) => a - b);
process.stdout.write(
  `${JSON.stringify({
    completed: results.length,
    valid: results.filter((r) => r.valid).length,
    requestsPerSecond: (results.length / duration) * 1000,
    p50Ms: p(ms, 0.5),
    p99Ms: p(ms, 0.99),
    firstByteP99Ms: p(firstBytes, 0.99),
    perChunkP99Ms: p(perChunk, 0.99),
    chunks: results[0]?.chunks ?? 0,
  })}\n`,
);
