/** An SVG line chart of the scaling table: total ms against message size, log scale. */
export function scalingChart(
  points: ReadonlyArray<{ kb: number; tagcall: number; reparse: number | null }>,
): string {
  const width = 640;
  const height = 360;
  const left = 70;
  const right = 20;
  const top = 40;
  const bottom = 50;
  const maxKb = Math.max(...points.map((p) => p.kb));
  const values = points.flatMap((p) => (p.reparse === null ? [p.tagcall] : [p.tagcall, p.reparse]));
  const lo = Math.floor(Math.log10(Math.min(...values)));
  const hi = Math.ceil(Math.log10(Math.max(...values)));
  const x = (kb: number) => left + (kb / maxKb) * (width - left - right);
  const y = (ms: number) => top + ((hi - Math.log10(ms)) / (hi - lo)) * (height - top - bottom);
  const line = (key: 'tagcall' | 'reparse', color: string) => {
    const drawn = points.filter((p) => p[key] !== null);
    const d = drawn.map(
      (p, i) => `${i === 0 ? 'M' : 'L'}${x(p.kb).toFixed(1)},${y(p[key] as number).toFixed(1)}`,
    );
    const dots = drawn.map(
      (p) =>
        `<circle cx="${x(p.kb).toFixed(1)}" cy="${y(p[key] as number).toFixed(1)}" r="3" fill="${color}"/>`,
    );
    return `<path d="${d.join(' ')}" fill="none" stroke="${color}" stroke-width="2"/>${dots.join('')}`;
  };
  const grid: string[] = [];
  for (let e = lo; e <= hi; e++) {
    const label = 10 ** e >= 1 ? `${10 ** e} ms` : `${(10 ** e).toFixed(-e)} ms`;
    grid.push(
      `<line x1="${left}" x2="${width - right}" y1="${y(10 ** e)}" y2="${y(10 ** e)}" stroke="#ddd"/>`,
    );
    grid.push(`<text x="${left - 6}" y="${y(10 ** e) + 4}" text-anchor="end">${label}</text>`);
  }
  for (const p of points) {
    grid.push(
      `<text x="${x(p.kb)}" y="${height - bottom + 18}" text-anchor="middle">${p.kb} KB</text>`,
    );
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">
<rect width="100%" height="100%" fill="white"/>
<text x="${width / 2}" y="22" text-anchor="middle" font-size="14">Streaming one message in 4-char chunks: total time (log scale)</text>
${grid.join('\n')}
${line('reparse', '#d62728')}
${line('tagcall', '#1f77b4')}
<text x="${left + 10}" y="${height - 12}" fill="#1f77b4">● tagcall</text>
<text x="${left + 90}" y="${height - 12}" fill="#d62728">● re-parse per chunk (regex + fast-xml-parser)</text>
</svg>
`;
}
