/**
 * `tagcall stats --html FILE` (#46 item 4): the CLI writes the report, and Debian's Chromium,
 * headless through puppeteer-core, opens it from a file:// URL with every request intercepted:
 * the page asks for nothing (no network), logs no error, and each chart has one mark per
 * number of the stats (`stats --json` of the same log). Skipped, saying why, without Chromium.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALONG_LOG_BLOCKS,
  addFinding,
  addMessage,
  createStats,
  type Finding,
  mergeStats,
  type TranscriptStats,
} from '../src/transcripts/index.js';
import { runChild } from './support/run-child.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CHROMIUM = process.env.TAGCALL_CHROMIUM ?? '/usr/bin/chromium';
const missing = !existsSync(CHROMIUM);
if (missing)
  console.warn(
    `test/stats-html.test.ts skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set TAGCALL_CHROMIUM)`,
  );

const TOOLS = ['read_file', 'write_file', 'run_tests', 'search', 'list_files', 'fetch_url'];
const call = (tool: string, n: number) =>
  `<tool>\n<tool_name>${tool}</tool_name>\n<arguments>\n  <path>src/file${n}.ts</path>\n  <content>${'x'.repeat(n % 97)}</content>\n</arguments>\n</tool>`;

/** An Anthropic-format JSONL log: calls in text, a structured call, failed results, damage. */
function writeLog(path: string): void {
  const lines: string[] = [];
  for (let n = 0; n < 300; n++) {
    if (n % 50 === 7) {
      lines.push('{not json'); // invalid-record
      continue;
    }
    const calls = Array.from({ length: n % 4 }, (_, k) => call(TOOLS[(n + k) % TOOLS.length], n));
    if (n % 23 === 0) calls.push('<tool>\n<arguments><a>1</a></arguments>\n</tool>'); // no name
    // A Hermes call cut off at the end of its message (read with --dialect auto).
    if (n % 29 === 3) calls.push('<tool_call>\n{"name": "search", "arguments": {"q": "x');
    const failed = n % 9 === 0;
    lines.push(
      JSON.stringify({
        messages: [
          { role: 'user', content: [{ type: 'text', text: `task ${n}` }] },
          {
            role: 'assistant',
            content: [
              { type: 'text', text: `Step ${n}.\n${calls.join('\n')}` },
              { type: 'tool_use', id: `t${n}`, name: 'run_tests', input: { filter: `case ${n}` } },
            ],
          },
          {
            role: 'user',
            content: [
              {
                type: 'tool_result',
                tool_use_id: `t${n}`,
                content: failed ? 'tests failed' : 'ok',
                ...(failed && { is_error: true }),
              },
            ],
          },
        ],
      }),
    );
  }
  writeFileSync(path, `${lines.join('\n')}\n`);
}

describe('calls per message along the log (the data of the report)', () => {
  /** Messages and calls of `file`'s lines `from` … `to` - 1 (line n: n % 5 calls). */
  const read = (file: string, from: number, to: number) => {
    const stats = createStats();
    for (let line = from; line < to; line++) {
      addMessage(stats, file, line);
      for (let k = 0; k < line % 5; k++)
        addFinding(stats, {
          type: 'call',
          id: `${line}#${k}`,
          serverName: 'local',
          toolName: 't',
          arguments: {},
          format: 'xml',
          chars: 10,
          file,
          line,
          offset: k,
        } satisfies Finding);
    }
    return stats;
  };

  it('parts read apart and merged in any order equal the whole, past the block limit', () => {
    const whole = read('a.jsonl', 1, 5001);
    expect(whole.alongLog.blocks.length).toBeLessThanOrEqual(ALONG_LOG_BLOCKS);
    expect(whole.alongLog.linesPerBlock).toBe(32);
    const cuts = [1, 7, 1300, 1301, 4096, 5001];
    const parts = cuts.slice(1).map((to, i) => read('a.jsonl', cuts[i], to));
    for (const order of [
      parts,
      [...parts].reverse(),
      [parts[2], parts[0], parts[4], parts[1], parts[3]],
    ])
      expect(order.reduce((into, part) => mergeStats(into, part), createStats())).toEqual(whole);
    const calls = whole.alongLog.blocks.reduce((sum, b) => sum + b.calls, 0);
    expect(calls).toBe(whole.calls);
  });

  it('more files than the limit: one block a file, in file order', () => {
    const files = Array.from(
      { length: ALONG_LOG_BLOCKS + 50 },
      (_, i) => `f${String(i).padStart(3, '0')}`,
    );
    const merged = [...files]
      .reverse()
      .reduce((into, file) => mergeStats(into, read(file, 1, 40)), createStats());
    expect(merged.alongLog.blocks.map((b) => [b.file, b.block])).toEqual(files.map((f) => [f, 0]));
  });
});

describe.skipIf(missing)('tagcall stats --html in headless Chromium', () => {
  let dir: string;
  let browser: Browser;
  let stats: TranscriptStats;
  let report: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'tagcall-html-'));
    const log = join(dir, 'agents.jsonl');
    report = join(dir, 'report.html');
    writeLog(log);
    const run = await runChild(
      process.execPath,
      [
        '--import',
        'tsx',
        join(ROOT, 'src/cli/main.ts'),
        'stats',
        log,
        '--dialect',
        'auto',
        '--json',
        '--html',
        report,
      ],
      ROOT,
    );
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    stats = JSON.parse(run.stdout);
    const puppeteer = await import('puppeteer-core');
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
        `--user-data-dir=${join(dir, 'profile')}`,
      ],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  });

  it('the log has what the report shows: calls of several tools, malformed and failed calls', () => {
    expect(Object.keys(stats.byTool).length).toBe(TOOLS.length);
    expect(Object.keys(stats.errorsByCode).sort()).toEqual([
      'incomplete-tool-call',
      'invalid-record',
      'missing-tool-name',
    ]);
    // A record that is no JSON has no format; each malformed call has the one it was written in.
    expect(stats.errorsByFormat).toEqual({
      hermes: stats.errorsByCode['incomplete-tool-call'],
      xml: stats.errorsByCode['missing-tool-name'],
    });
    expect(stats.failedByTool).toEqual({ run_tests: 33 });
    expect(stats.alongLog.blocks.length).toBeGreaterThan(100);
  });

  it('loads from file:// with no request, no console error, and one mark a number', async () => {
    const page = await browser.newPage();
    const url = pathToFileURL(report).href;
    const requests: string[] = [];
    const problems: string[] = [];
    await page.setRequestInterception(true);
    page.on('request', (request) => {
      if (request.url() === url) return void request.continue();
      requests.push(request.url());
      void request.abort();
    });
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warn') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    await page.setViewport({ width: 1280, height: 900 });
    await page.goto(url, { waitUntil: 'load' });
    expect(requests).toEqual([]);
    expect(problems).toEqual([]);

    type Drawn = { marks: number; labels: string[]; values: Array<number | null> };
    const drawn = await page.$$eval('canvas', (canvases) =>
      canvases.map((canvas) => {
        const { Chart } = globalThis as unknown as {
          Chart: {
            getChart(c: unknown): {
              getDatasetMeta(i: number): { data: unknown[] };
              data: { labels: string[]; datasets: Array<{ data: Array<number | null> }> };
            };
          };
        };
        const chart = Chart.getChart(canvas);
        return {
          id: canvas.id,
          marks: chart.getDatasetMeta(0).data.length,
          labels: chart.data.labels,
          values: chart.data.datasets[0].data,
        };
      }),
    );
    const marks: Record<string, Drawn> = Object.fromEntries(drawn.map((d) => [d.id, d]));
    expect(Object.keys(marks).sort()).toEqual(
      ['along', 'error-formats', 'errors', 'failed', 'formats', 'largest', 'tools'].sort(),
    );
    const sorted = (counts: Record<string, number>) =>
      Object.entries(counts).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
    for (const [id, counts] of [
      ['tools', stats.byTool],
      ['errors', stats.errorsByCode],
      ['error-formats', stats.errorsByFormat],
      ['failed', stats.failedByTool],
      ['formats', stats.byFormat],
    ] as const) {
      expect(marks[id].marks, id).toBe(Object.keys(counts).length);
      expect(marks[id].labels, id).toEqual(sorted(counts).map(([name]) => name));
      expect(marks[id].values, id).toEqual(sorted(counts).map(([, n]) => n));
    }
    expect(marks.largest.marks).toBe(stats.largest.length);
    expect(marks.largest.values).toEqual(stats.largest.map((c) => c.chars));
    expect(marks.along.marks).toBe(stats.alongLog.blocks.length);
    expect(marks.along.values).toEqual(
      stats.alongLog.blocks.map((b) => (b.messages === 0 ? null : b.calls / b.messages)),
    );

    // The numbers stand in tables beside the charts.
    const rows = await page.$$eval('section table tbody tr', (trs) =>
      trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)),
    );
    for (const [tool, n] of Object.entries(stats.byTool))
      expect(rows).toContainEqual(expect.arrayContaining([tool, n.toLocaleString('en')]));
    if (process.env.TAGCALL_HTML_SCREENSHOT !== undefined)
      await page.screenshot({ path: process.env.TAGCALL_HTML_SCREENSHOT, fullPage: true });
    await page.close();
  }, 60_000);

  it('a name with markup is shown as text, not run', async () => {
    const log = join(dir, 'markup.jsonl');
    const html = join(dir, 'markup.html');
    const name = 'x_<img_src=y_onerror=alert(1)>';
    writeFileSync(
      log,
      `${JSON.stringify({ messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name, input: {} }] }] })}\n`,
    );
    const run = await runChild(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src/cli/main.ts'), 'stats', log, '--html', html],
      ROOT,
    );
    expect(run.status).toBe(0);
    expect(readFileSync(html, 'utf8')).not.toContain('<img');
    const page = await browser.newPage();
    await page.goto(pathToFileURL(html).href, { waitUntil: 'load' });
    expect(await page.$$('img')).toEqual([]);
    const cells = await page.$$eval('td', (tds) => tds.map((td) => td.textContent));
    expect(cells).toContain(name);
    await page.close();
  }, 60_000);
});
