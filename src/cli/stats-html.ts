import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { type LogBlock, summarizeStats, type TranscriptStats } from '../transcripts/index.js';

/** Bars in one chart at most: the rest are summed into one "other" bar. */
const MAX_BARS = 30;
/** Points along the log at most: neighbouring blocks are summed past this. */
const MAX_POINTS = 200;

/** Chart.js's browser build (MIT, its licence header kept), read from its package. */
function chartScript(): string {
  const main = createRequire(import.meta.url).resolve('chart.js');
  return readFileSync(join(dirname(main), 'chart.umd.min.js'), 'utf8');
}

const escapeHtml = (text: string) =>
  text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');

/** JSON inside a `<script>`: no `<` to end it early, no line separators to break it. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value)
    .replaceAll('<', '\\u003c')
    .replaceAll('\u2028', '\\u2028')
    .replaceAll('\u2029', '\\u2029');

export interface Bars {
  labels: string[];
  values: number[];
}

/** The largest counts first; past `MAX_BARS`, the rest as one bar. */
export function barsOf(counts: Record<string, number>): Bars {
  const rows = Object.entries(counts).sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
  const shown = rows.length > MAX_BARS ? rows.slice(0, MAX_BARS - 1) : rows;
  const rest = rows.slice(shown.length);
  const labels = shown.map(([name]) => name);
  const values = shown.map(([, n]) => n);
  if (rest.length > 0) {
    labels.push(`(${rest.length} others)`);
    values.push(rest.reduce((sum, [, n]) => sum + n, 0));
  }
  return { labels, values };
}

export interface AlongPoint {
  label: string;
  messages: number;
  calls: number;
}

/** The blocks along the log, neighbours summed to at most `MAX_POINTS` points. */
export function alongPoints(stats: TranscriptStats): AlongPoint[] {
  const { linesPerBlock, blocks } = stats.alongLog;
  const group = Math.ceil(blocks.length / MAX_POINTS);
  const lines = (b: LogBlock) =>
    linesPerBlock === 1
      ? `${b.block + 1}`
      : `${b.block * linesPerBlock + 1}–${(b.block + 1) * linesPerBlock}`;
  const points: AlongPoint[] = [];
  for (let i = 0; i < blocks.length; i += group) {
    const part = blocks.slice(i, i + group);
    const first = part[0];
    const last = part[part.length - 1];
    points.push({
      label:
        part.length === 1
          ? `${first.file}:${lines(first)}`
          : `${first.file}:${lines(first)} … ${last.file}:${lines(last)}`,
      messages: part.reduce((sum, b) => sum + b.messages, 0),
      calls: part.reduce((sum, b) => sum + b.calls, 0),
    });
  }
  return points;
}

const number = (n: number) => n.toLocaleString('en');

function table(headers: string[], rows: Array<Array<string | number>>): string {
  const cell = (value: string | number) =>
    typeof value === 'number'
      ? `<td class="n">${number(value)}</td>`
      : `<td>${escapeHtml(value)}</td>`;
  return `<table><thead><tr>${headers.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows
    .map((row) => `<tr>${row.map(cell).join('')}</tr>`)
    .join('')}</tbody></table>`;
}

/** A chart (its canvas, drawn by the script from `data-chart`) beside its numbers. */
function section(
  id: string,
  title: string,
  note: string,
  tableHtml: string,
  empty: boolean,
): string {
  const figure = empty
    ? '<p class="empty">none in this log</p>'
    : `<div class="chart"><canvas id="${id}" role="img" aria-label="${escapeHtml(title)}"></canvas></div>`;
  return `<section><h2>${escapeHtml(title)}</h2><p class="note">${escapeHtml(note)}</p><div class="pair">${figure}<div class="numbers">${tableHtml}</div></div></section>`;
}

const where = (c: TranscriptStats['largest'][number]) =>
  `${c.location.file}${c.location.line !== undefined ? `:${c.location.line}` : ''}${c.location.messageIndex !== undefined ? ` message ${c.location.messageIndex}` : ''} @${c.location.offset}`;

/**
 * `tagcall stats --html`: one self-contained page (Chart.js and the data inlined, a Content
 * Security Policy that allows no request) with the figures beside their numbers.
 */
export function statsHtml(stats: TranscriptStats, title: string): string {
  const s = summarizeStats(stats);
  const tools = barsOf(stats.byTool);
  const errors = barsOf(stats.errorsByCode);
  const errorFormats = barsOf(stats.errorsByFormat);
  const failed = barsOf(stats.failedByTool);
  const formats = barsOf(stats.byFormat);
  const along = alongPoints(stats);
  const largest = stats.largest.map((c, i) => ({
    label: `#${i + 1} ${c.toolName}`,
    place: where(c),
    chars: c.chars,
  }));
  const data = {
    tools,
    errors,
    errorFormats,
    failed,
    formats,
    along: {
      labels: along.map((p) => p.label),
      perMessage: along.map((p) => (p.messages === 0 ? null : p.calls / p.messages)),
    },
    largest: { labels: largest.map((c) => c.label), values: largest.map((c) => c.chars) },
  };
  const barRows = (bars: Bars, total: number) =>
    bars.labels.map((label, i) => [
      label,
      bars.values[i],
      total === 0 ? '' : `${((100 * bars.values[i]) / total).toFixed(1)}%`,
    ]);
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const summary = [
    ['files', number(stats.files)],
    ['bytes', `${(stats.bytes / 1e6).toFixed(1)} MB`],
    ['assistant messages', number(stats.messages)],
    ['calls', number(stats.calls)],
    ['malformed calls', `${number(s.malformedCalls)} (${pct(s.malformedRate)})`],
    [
      'failed calls (results marked as errors)',
      number(Object.values(stats.failedByTool).reduce((a, b) => a + b, 0)),
    ],
    ['quoted (not counted as calls)', number(stats.quoted)],
    ['thinking share of assistant output', pct(s.thinkingShare)],
    ['average arguments size', `${s.averageArgumentChars.toFixed(0)} characters`],
  ];
  const sections = [
    section(
      'tools',
      'Calls per tool',
      'Every call an assistant made, by tool name.',
      table(['tool', 'calls', 'share'], barRows(tools, stats.calls)),
      tools.labels.length === 0,
    ),
    section(
      'errors',
      'Malformed calls by kind',
      'Calls the parser could not read, by error code.',
      table(['kind', 'calls', 'share'], barRows(errors, s.malformedCalls)),
      errors.labels.length === 0,
    ),
    section(
      'error-formats',
      'Malformed calls by dialect',
      'Calls the parser could not read, by the format they were written in (records that could not be read as messages have none).',
      table(['dialect', 'calls', 'share'], barRows(errorFormats, s.malformedCalls)),
      errorFormats.labels.length === 0,
    ),
    section(
      'failed',
      'Failed calls by tool',
      'Calls whose result the log marks as an error (structured logs: the audit log, Anthropic, tagcall threads).',
      table(
        ['tool', 'failed'],
        failed.labels.map((label, i) => [label, failed.values[i]]),
      ),
      failed.labels.length === 0,
    ),
    section(
      'formats',
      'Calls by dialect',
      'The format each call was written in (structured: the log held it as data).',
      table(['dialect', 'calls', 'share'], barRows(formats, stats.calls)),
      formats.labels.length === 0,
    ),
    section(
      'along',
      'Calls per message along the log',
      `Calls per assistant message, in blocks of ${number(stats.alongLog.linesPerBlock)} line${stats.alongLog.linesPerBlock === 1 ? '' : 's'} of each file, in file order.`,
      `<details><summary>${number(along.length)} points</summary>${table(
        ['lines', 'messages', 'calls', 'calls per message'],
        along.map((p) => [
          p.label,
          p.messages,
          p.calls,
          p.messages === 0 ? '' : (p.calls / p.messages).toFixed(2),
        ]),
      )}</details>`,
      along.length === 0,
    ),
    section(
      'largest',
      'Largest arguments',
      'The calls written with the most characters, and where they are.',
      table(
        ['call', 'where', 'characters'],
        largest.map((c) => [c.label, c.place, c.chars]),
      ),
      largest.length === 0,
    ),
  ];
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; margin: 24px auto; max-width: 1200px; padding: 0 16px; color: #1d2433; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 2px; }
.note, .empty { color: #5a6478; margin: 0 0 8px; }
.pair { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 24px; align-items: start; }
.chart { position: relative; height: 320px; }
.numbers { max-height: 340px; overflow: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #e3e6ec; }
td { overflow-wrap: anywhere; }
.summary { max-width: 560px; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.summary td:first-child { color: #5a6478; }
@media (max-width: 800px) { .pair { grid-template-columns: 1fr; } }
</style>
</head>
<body>
<h1>${escapeHtml(title)}</h1>
<table class="summary"><tbody>${summary.map(([k, v]) => `<tr><td>${escapeHtml(k)}</td><td class="n">${escapeHtml(v)}</td></tr>`).join('')}</tbody></table>
${sections.join('\n')}
<script type="application/json" id="stats-data">${scriptJson(data)}</script>
<script>${chartScript()}</script>
<script>${DRAW}</script>
</body>
</html>
`;
}

/** The page's own script: one chart a canvas, from the data above, without animation. */
const DRAW = `
(() => {
  const data = JSON.parse(document.getElementById('stats-data').textContent);
  Chart.defaults.animation = false;
  Chart.defaults.maintainAspectRatio = false;
  const bars = (id, bars, label, color) => {
    const canvas = document.getElementById(id);
    if (canvas === null) return;
    new Chart(canvas, {
      type: 'bar',
      data: { labels: bars.labels, datasets: [{ label, data: bars.values, backgroundColor: color, maxBarThickness: 28 }] },
      options: {
        indexAxis: 'y',
        plugins: { legend: { display: false } },
        scales: { x: { beginAtZero: true, ticks: { precision: 0 } }, y: { ticks: { autoSkip: false, callback(value) { const l = this.getLabelForValue(value); return l.length > 40 ? l.slice(0, 39) + '…' : l; } } } },
      },
    });
  };
  bars('tools', data.tools, 'calls', '#3b6fd8');
  bars('errors', data.errors, 'malformed calls', '#d8573b');
  bars('error-formats', data.errorFormats, 'malformed calls', '#d8573b');
  bars('failed', data.failed, 'failed calls', '#b8860b');
  bars('formats', data.formats, 'calls', '#2e9d6a');
  bars('largest', data.largest, 'characters', '#7a4fd0');
  const along = document.getElementById('along');
  if (along !== null)
    new Chart(along, {
      type: 'line',
      data: {
        labels: data.along.labels,
        datasets: [{ label: 'calls per message', data: data.along.perMessage, borderColor: '#3b6fd8', backgroundColor: '#3b6fd8', pointRadius: 2, spanGaps: true }],
      },
      options: {
        plugins: { legend: { display: false } },
        scales: { x: { ticks: { display: false } }, y: { beginAtZero: true } },
      },
    });
})();
`;
