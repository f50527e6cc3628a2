/** A one-line progress bar on stderr: bytes done of the total, calls found, and the rate. */
export function createProgress(
  enabled: boolean,
  totalBytes: number,
  stream: { isTTY?: boolean; write(text: string): unknown } = process.stderr,
) {
  const on = enabled && stream.isTTY === true;
  const started = performance.now();
  let bytes = 0;
  let calls = 0;
  let lastDraw = 0;
  const draw = (force: boolean) => {
    if (!on) return;
    const now = performance.now();
    if (!force && now - lastDraw < 100) return;
    lastDraw = now;
    const mb = (n: number) => (n / 1e6).toFixed(1);
    const rate = bytes / 1e6 / Math.max(0.001, (now - started) / 1000);
    const share = totalBytes > 0 ? Math.min(1, bytes / totalBytes) : 0;
    const bar = '#'.repeat(Math.round(share * 24)).padEnd(24, '.');
    stream.write(
      `\r[${bar}] ${mb(bytes)}/${totalBytes > 0 ? mb(totalBytes) : '?'} MB  ${calls.toLocaleString('en')} calls  ${rate.toFixed(0)} MB/s `,
    );
  };
  return {
    read(n: number) {
      bytes += n;
      draw(false);
    },
    /** Calls of a finished file (stats mode) … */
    calls(n: number) {
      calls += n;
      draw(false);
    },
    /** … or counted from NDJSON output as it is written. */
    found(ndjson: string) {
      for (
        let i = ndjson.indexOf('{"type":"call"');
        i !== -1;
        i = ndjson.indexOf('{"type":"call"', i + 1)
      )
        calls++;
    },
    end() {
      if (!on) return;
      draw(true);
      stream.write('\n');
    },
  };
}
