/** The bench chart: staging, processing and end to end apart; axes spanning the data; round ticks. */
import { describe, expect, it } from 'vitest';
import { renderChart, roundTicks, type ChartPoint } from '../../src/bench/chart.js';

const points: ChartPoint[] = [500, 2000, 10000].flatMap((chunkSize) =>
  [1, 2, 4].map((workers) => ({
    chunkSize,
    workers,
    stageRowsPerSec: 20_899 + chunkSize,
    processRowsPerSec: 15_591 * workers,
    endToEndRowsPerSec: 8930 + workers * 1000 + chunkSize / 10,
  })),
);

/** The attribute values of the elements of `tag` with `attr` in an SVG. */
function attrs(svg: string, pattern: RegExp): string[] {
  return [...svg.matchAll(pattern)].map((m) => m[1] ?? '');
}

describe('bench chart', () => {
  const svg = renderChart(points, 'order-loader bench: 100000 rows on postgres');
  const panels = svg.split('<g class="panel"').slice(1);

  it('shows staging, processing and end to end apart, one line per worker count in each', () => {
    expect(panels.map((p) => /data-panel="([^"]+)"/.exec(p)?.[1])).toEqual(['staging', 'processing', 'end to end']);
    for (const p of panels) expect(p.match(/<polyline/g)).toHaveLength(3);
    expect(svg).toContain('4 workers');
  });

  it('the chunk size axis spans the sizes measured, not from 1', () => {
    expect(panels).toHaveLength(3);
    for (const p of panels) {
      expect(attrs(p, /class="x-tick"[^>]*>([^<]+)</g)).toEqual(['500', '2000', '10000']);
      const axisX = Number(/<line x1="([\d.]+)" y1="[\d.]+" x2="\1" y2="[\d.]+" stroke="black"\/>/.exec(p)?.[1]);
      const first = Number(/class="x-tick" x="([\d.]+)"/.exec(p)?.[1]);
      // 500 stands near the axis: the log scale does not start at 1 (3 decades of empty room)
      expect(first - axisX).toBeGreaterThan(0);
      expect(first - axisX).toBeLessThan(30);
    }
  });

  it('rates from 0 to the fastest rounded up, with round ticks', () => {
    const labels = panels.map((p) => attrs(p, /class="y-tick"[^>]*>([^<]+)</g));
    expect(labels[0]).toEqual(['0', '10k', '20k', '30k', '40k']);
    expect(labels[1]).toEqual(['0', '20k', '40k', '60k', '80k']);
    expect(labels[2]).toEqual(['0', '5k', '10k', '15k']);
    expect(roundTicks(29_700)).toEqual([0, 10_000, 20_000, 30_000]);
    expect(roundTicks(12_758)).toEqual([0, 5000, 10_000, 15_000]);
    expect(roundTicks(0.9)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
  });

  it('one chunk size and one worker count (PGlite): a readable chart, no NaN', () => {
    const one = renderChart([points[0] as ChartPoint], 'pglite');
    expect(one).not.toContain('NaN');
    expect(attrs(one, /class="x-tick"[^>]*>([^<]+)</g)).toEqual(['500', '500', '500']);
  });
});
