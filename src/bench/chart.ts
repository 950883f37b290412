/**
 * The bench chart, an SVG: three panels side by side, staging, processing and end to end, each
 * rows/s against chunk size (log scale), one line per worker count. Each axis spans the data (the
 * chunk sizes measured, from 0 to the fastest rate rounded up) with round ticks.
 */
export interface ChartPoint {
  chunkSize: number;
  workers: number;
  stageRowsPerSec: number;
  processRowsPerSec: number;
  endToEndRowsPerSec: number;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

const PANELS = [
  { title: 'staging', rate: (p: ChartPoint) => p.stageRowsPerSec },
  { title: 'processing', rate: (p: ChartPoint) => p.processRowsPerSec },
  { title: 'end to end', rate: (p: ChartPoint) => p.endToEndRowsPerSec },
] as const;

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? c);
}

/**
 * Round ticks from 0 to at least `max`: a step of 1, 2, 2.5 or 5 times a power of ten, about
 * `count` of them.
 */
export function roundTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((m) => m * power >= raw) ?? 10) * power;
  const ticks: number[] = [];
  for (let i = 0; ticks.length === 0 || (ticks.at(-1) ?? 0) < max; i++) ticks.push(Number((i * step).toPrecision(12)));
  return ticks;
}

/** A tick's label: 12000 → 12k, 2500 → 2.5k, 1500000 → 1.5M. */
function tickLabel(value: number): string {
  if (value >= 1_000_000) return `${Number((value / 1_000_000).toPrecision(6))}M`;
  if (value >= 1000) return `${Number((value / 1000).toPrecision(6))}k`;
  return String(value);
}

export function renderChart(points: ChartPoint[], title: string): string {
  const panelWidth = 250;
  const panelHeight = 260;
  const gap = 70;
  const m = { left: 62, top: 58, bottom: 56 };
  const legendWidth = 140;
  const width = m.left + PANELS.length * panelWidth + (PANELS.length - 1) * gap + legendWidth;
  const height = m.top + panelHeight + m.bottom;
  const chunkSizes = [...new Set(points.map((p) => p.chunkSize))].sort((a, b) => a - b);
  const workerCounts = [...new Set(points.map((p) => p.workers))].sort((a, b) => a - b);
  // the chunk sizes measured, a little room either side (half a decade when there is only one)
  const lo = Math.log10(chunkSizes[0] ?? 1);
  const hi = Math.log10(chunkSizes.at(-1) ?? 10);
  const pad = hi > lo ? (hi - lo) * 0.08 : 0.5;
  const [logMin, logMax] = [lo - pad, hi + pad];
  const bottom = m.top + panelHeight;

  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(title)}</text>`,
  ];
  PANELS.forEach((panel, index) => {
    const left = m.left + index * (panelWidth + gap);
    const right = left + panelWidth;
    const x = (c: number) => left + ((Math.log10(c) - logMin) / (logMax - logMin)) * panelWidth;
    const ticks = roundTicks(Math.max(0, ...points.map(panel.rate)));
    const top = ticks.at(-1) ?? 1;
    const y = (r: number) => bottom - (r / top) * panelHeight;
    parts.push(
      `<g class="panel" data-panel="${panel.title}">`,
      `<text x="${(left + right) / 2}" y="${m.top - 12}" text-anchor="middle" font-size="13" font-weight="bold">${panel.title} (rows/s)</text>`,
    );
    for (const t of ticks) {
      parts.push(`<line x1="${left}" y1="${y(t).toFixed(1)}" x2="${right}" y2="${y(t).toFixed(1)}" stroke="#e4e4e4"/>`);
      parts.push(`<text class="y-tick" x="${left - 6}" y="${(y(t) + 4).toFixed(1)}" text-anchor="end">${tickLabel(t)}</text>`);
    }
    parts.push(
      `<line x1="${left}" y1="${bottom}" x2="${right}" y2="${bottom}" stroke="black"/>`,
      `<line x1="${left}" y1="${m.top}" x2="${left}" y2="${bottom}" stroke="black"/>`,
    );
    for (const c of chunkSizes) {
      parts.push(`<line x1="${x(c).toFixed(1)}" y1="${bottom}" x2="${x(c).toFixed(1)}" y2="${bottom + 5}" stroke="black"/>`);
      parts.push(`<text class="x-tick" x="${x(c).toFixed(1)}" y="${bottom + 18}" text-anchor="middle">${c}</text>`);
    }
    parts.push(`<text x="${(left + right) / 2}" y="${bottom + 38}" text-anchor="middle">chunk size (rows, log scale)</text>`);
    workerCounts.forEach((w, i) => {
      const color = COLORS[i % COLORS.length] ?? 'black';
      const line = points.filter((p) => p.workers === w).sort((a, b) => a.chunkSize - b.chunkSize);
      const at = (p: ChartPoint) => `${x(p.chunkSize).toFixed(1)},${y(panel.rate(p)).toFixed(1)}`;
      parts.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${line.map(at).join(' ')}"/>`);
      for (const p of line)
        parts.push(`<circle cx="${x(p.chunkSize).toFixed(1)}" cy="${y(panel.rate(p)).toFixed(1)}" r="3.5" fill="${color}"/>`);
    });
    parts.push('</g>');
  });
  const legendX = m.left + PANELS.length * panelWidth + (PANELS.length - 1) * gap + 24;
  workerCounts.forEach((w, i) => {
    const color = COLORS[i % COLORS.length] ?? 'black';
    const ly = m.top + 20 * i + 10;
    parts.push(`<line x1="${legendX}" y1="${ly - 4}" x2="${legendX + 18}" y2="${ly - 4}" stroke="${color}" stroke-width="2"/>`);
    parts.push(`<text x="${legendX + 24}" y="${ly}" fill="${color}">${w} worker${w === 1 ? '' : 's'}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
