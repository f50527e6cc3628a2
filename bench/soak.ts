/**
 * `npm run soak`: `tagcall serve` (the built CLI, in its own process) under peers that try to
 * make it hold memory, and the parser's cost on hostile input shapes. For each scenario the
 * proxy's RSS is sampled every second for `--seconds` (default 30): it must stay flat. Prints
 * Markdown tables and writes them to bench/results/soak.md. Everything runs on 127.0.0.1.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { doublingRatio, HOSTILE_SHAPES } from '../test/support/hostile-shapes.js';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 30;
const CLI = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const out: string[] = [];
const log = (line = '') => {
  out.push(line);
  console.log(line);
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const mib = (bytes: number) => bytes / 2 ** 20;

/** VmRSS of a process, from /proc (Linux). */
const rssOf = (pid: number) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

const chunk = (content: string) =>
  `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;

/** Answers as fast as the reader takes it, until the soak is over. */
function fast(response: ServerResponse, stop: () => boolean) {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  const line = chunk(`${'lorem ipsum dolor sit amet '.repeat(40)}\n`);
  const pump = () => {
    while (!stop() && !response.destroyed)
      if (!response.write(line)) return void response.once('drain', pump);
    if (!response.destroyed) response.end('data: [DONE]\n\n');
  };
  pump();
}

/** One small chunk every 50 ms, a call now and then, until the soak is over. */
function slow(response: ServerResponse, stop: () => boolean) {
  response.writeHead(200, { 'content-type': 'text/event-stream' });
  let n = 0;
  const timer = setInterval(() => {
    if (response.destroyed) return clearInterval(timer);
    if (stop()) {
      clearInterval(timer);
      return void response.end('data: [DONE]\n\n');
    }
    n++;
    response.write(
      chunk(
        n % 40 === 0
          ? '\n<tool>\n<tool_name>weather</tool_name>\n<arguments><city>Lyon</city></arguments>\n</tool>\n'
          : `word${n} `,
      ),
    );
  }, 50);
}

const request = JSON.stringify({
  model: 'm',
  stream: true,
  messages: [{ role: 'user', content: 'go' }],
  tools: [
    {
      type: 'function',
      function: {
        name: 'weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
    },
  ],
});

/** A client that sends its request and then reads (or, `stalled`, never reads) the answer. */
async function client(port: number, stalled: boolean): Promise<Socket> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  if (stalled) socket.pause();
  else socket.on('data', () => {});
  socket.on('error', () => {});
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(request)}\r\n\r\n${request}`,
  );
  return socket;
}

interface Soak {
  scenario: string;
  clients: number;
  startMiB: number;
  /** After the first five seconds: what the buffers settle at. */
  settledMiB: number;
  maxMiB: number;
  endMiB: number;
  upstreamMB: number;
}

async function soak(
  scenario: string,
  answer: (response: ServerResponse, stop: () => boolean, sent: { bytes: number }) => void,
  clients: number,
  stalled: boolean,
): Promise<Soak> {
  let over = false;
  const sent = { bytes: 0 };
  const upstream = createServer((req, res) => {
    req.resume();
    const write = res.write.bind(res);
    res.write = ((data: string, ...rest: never[]) => {
      sent.bytes += Buffer.byteLength(data);
      return write(data, ...rest);
    }) as typeof res.write;
    req.on('end', () => answer(res, () => over, sent));
  });
  upstream.listen(0, '127.0.0.1');
  await once(upstream, 'listening');
  const proxy = spawn(
    process.execPath,
    [
      CLI,
      'serve',
      '--port',
      '0',
      '--upstream',
      `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const [line] = (await once(proxy.stderr, 'data')) as [Buffer];
  const port = Number(/:(\d+)\/v1/.exec(line.toString())?.[1]);
  const pid = proxy.pid as number;
  await sleep(500);
  const start = rssOf(pid);
  const sockets = await Promise.all(Array.from({ length: clients }, () => client(port, stalled)));
  let max = start;
  let settled = start;
  for (let s = 1; s <= seconds; s++) {
    await sleep(1000);
    const rss = rssOf(pid);
    max = Math.max(max, rss);
    if (s === Math.min(5, seconds)) settled = rss;
  }
  const end = rssOf(pid);
  over = true;
  for (const socket of sockets) socket.destroy();
  proxy.kill('SIGTERM');
  await once(proxy, 'exit');
  upstream.closeAllConnections();
  upstream.close();
  return {
    scenario,
    clients,
    startMiB: mib(start),
    settledMiB: mib(settled),
    maxMiB: mib(max),
    endMiB: mib(end),
    upstreamMB: sent.bytes / 1e6,
  };
}

log('# tagcall soak');
log();
log(`## \`tagcall serve\` RSS over ${seconds} s (sampled every second)`);
log();
log(
  '| scenario | clients | RSS before (MiB) | after 5 s (MiB) | max (MiB) | at end (MiB) | upstream sent (MB) |',
);
log('|---|---:|---:|---:|---:|---:|---:|');
for (const result of [
  await soak('stalled readers, upstream as fast as it is let', fast, 20, true),
  await soak('slow upstream (a chunk every 50 ms), readers keep up', slow, 50, false),
]) {
  log(
    `| ${result.scenario} | ${result.clients} | ${result.startMiB.toFixed(0)} | ${result.settledMiB.toFixed(0)} | ${result.maxMiB.toFixed(0)} | ${result.endMiB.toFixed(0)} | ${result.upstreamMB.toFixed(1)} |`,
  );
}
log();
log('## Hostile input shapes: CPU time for size 2n against size n (2 is linear, 4 quadratic)');
log();
log('| shape | n | n (CPU ms) | 2n (CPU ms) | 2n / n |');
log('|---|---:|---:|---:|---:|');
for (const [name, make, start] of HOSTILE_SHAPES) {
  const d = doublingRatio(make, start);
  log(
    `| ${name} | ${d.n} | ${d.smallMs.toFixed(1)} | ${d.largeMs.toFixed(1)} | ${d.ratio.toFixed(2)} |`,
  );
}
writeFileSync(new URL('./results/soak.md', import.meta.url), `${out.join('\n')}\n`);
