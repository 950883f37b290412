/** The package ships no types: what test/cli/metrics-file-cli.test.ts uses of it (prom2json's shape). */
declare module 'parse-prometheus-text-format' {
  interface MetricFamily {
    name: string;
    help: string;
    type: 'GAUGE' | 'COUNTER' | 'SUMMARY' | 'HISTOGRAM' | 'UNTYPED';
    metrics: Array<{ value: string; labels?: Record<string, string> }>;
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
