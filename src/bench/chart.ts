/** A small SVG line chart: end-to-end rows/s against chunk size (log scale), one line per worker count. */
export interface ChartPoint {
  chunkSize: number;
  workers: number;
  rowsPerSec: number;
}

const COLORS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b'];

function escapeXml(text: string): string {
  return text.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c] ?? c);
}

export function renderChart(points: ChartPoint[], title: string): string {
  const width = 720;
  const height = 420;
  const m = { left: 80, right: 140, top: 40, bottom: 50 };
  const chunkSizes = [...new Set(points.map((p) => p.chunkSize))].sort((a, b) => a - b);
  const workerCounts = [...new Set(points.map((p) => p.workers))].sort((a, b) => a - b);
  const maxRate = Math.max(1, ...points.map((p) => p.rowsPerSec));
  const logMin = Math.log10(Math.min(...chunkSizes, 1));
  const logMax = Math.log10(Math.max(...chunkSizes, 10));
  const x = (c: number) => m.left + ((Math.log10(c) - logMin) / Math.max(1e-9, logMax - logMin)) * (width - m.left - m.right);
  const y = (r: number) => height - m.bottom - (r / (maxRate * 1.1)) * (height - m.top - m.bottom);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="22" text-anchor="middle" font-size="15">${escapeXml(title)}</text>`,
    `<line x1="${m.left}" y1="${height - m.bottom}" x2="${width - m.right}" y2="${height - m.bottom}" stroke="black"/>`,
    `<line x1="${m.left}" y1="${m.top}" x2="${m.left}" y2="${height - m.bottom}" stroke="black"/>`,
    `<text x="${(m.left + width - m.right) / 2}" y="${height - 12}" text-anchor="middle">chunk size (rows, log scale)</text>`,
    `<text x="18" y="${height / 2}" text-anchor="middle" transform="rotate(-90 18 ${height / 2})">rows/s end to end</text>`,
  ];
  for (const c of chunkSizes) {
    parts.push(`<line x1="${x(c)}" y1="${height - m.bottom}" x2="${x(c)}" y2="${height - m.bottom + 5}" stroke="black"/>`);
    parts.push(`<text x="${x(c)}" y="${height - m.bottom + 18}" text-anchor="middle">${c}</text>`);
  }
  for (let i = 0; i <= 5; i++) {
    const r = (maxRate * 1.1 * i) / 5;
    parts.push(`<line x1="${m.left - 5}" y1="${y(r)}" x2="${width - m.right}" y2="${y(r)}" stroke="#ddd"/>`);
    parts.push(`<text x="${m.left - 8}" y="${y(r) + 4}" text-anchor="end">${Math.round(r).toLocaleString('en-US')}</text>`);
  }
  workerCounts.forEach((w, i) => {
    const color = COLORS[i % COLORS.length] ?? 'black';
    const line = points.filter((p) => p.workers === w).sort((a, b) => a.chunkSize - b.chunkSize);
    parts.push(
      `<polyline fill="none" stroke="${color}" stroke-width="2" points="${line.map((p) => `${x(p.chunkSize).toFixed(1)},${y(p.rowsPerSec).toFixed(1)}`).join(' ')}"/>`,
    );
    for (const p of line)
      parts.push(`<circle cx="${x(p.chunkSize).toFixed(1)}" cy="${y(p.rowsPerSec).toFixed(1)}" r="3.5" fill="${color}"/>`);
    parts.push(`<text x="${width - m.right + 12}" y="${m.top + 20 * i + 10}" fill="${color}">${w} worker${w === 1 ? '' : 's'}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
