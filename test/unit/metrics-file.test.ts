import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { describe, expect, it } from 'vitest';
import { renderMetrics } from '../../src/cli/metrics-file.js';

const at = (iso: string) => new Date(iso);
const successes = (text: string) =>
  parsePrometheusTextFormat(text)
    .find((f) => f.name === 'order_loader_last_success_timestamp_seconds')
    ?.metrics.map((m) => [m.labels?.command, Number(m.value)]);

describe('renderMetrics (the text of --metrics-file)', () => {
  it('escapes label values as the format asks: a parser reads back the same value', () => {
    const odd = 'a"b\\c\nd';
    const text = renderMetrics({ command: odd, exitCode: 0, durationMs: 1500, finishedAt: at('2026-12-01T02:30:00Z') }, null);
    const family = parsePrometheusTextFormat(text).find((f) => f.name === 'order_loader_last_run_exit_code');
    expect(family?.metrics).toEqual([{ labels: { command: odd }, value: '0' }]);
    expect(text).toContain('order_loader_last_run_duration_seconds{command="a\\"b\\\\c\\nd"} 1.5\n');
  });

  it('keeps the last success of every command from the previous file; a failed run does not move its own', () => {
    const first = renderMetrics({ command: 'process', exitCode: 2, durationMs: 1, finishedAt: at('2026-12-01T01:00:00Z') }, null);
    const second = renderMetrics({ command: 'load', exitCode: 0, durationMs: 1, finishedAt: at('2026-12-01T02:00:00Z') }, first);
    const failed = renderMetrics({ command: 'load', exitCode: 1, durationMs: 1, finishedAt: at('2026-12-01T03:00:00Z') }, second);
    expect(successes(second)).toEqual([
      ['load', Date.parse('2026-12-01T02:00:00Z') / 1000],
      ['process', Date.parse('2026-12-01T01:00:00Z') / 1000],
    ]);
    expect(successes(failed)).toEqual(successes(second));
    // never finished, no previous file: no sample (the alert's absent() sees it)
    expect(successes(renderMetrics({ command: 'load', exitCode: 1, durationMs: 1, finishedAt: new Date() }, null))).toBeUndefined();
  });
});
