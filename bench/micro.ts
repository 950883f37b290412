/**
 * Micro-benchmark (tinybench): parse + validate throughput of src/input/order-record.ts, the
 * per-row CPU work of `load` outside the database (CSV reading not included).
 *
 *   node dist/bench/micro.js [--rows-per-iteration 1000] [--time-ms 2000]
 */
import { parseArgs } from 'node:util';
import { Bench } from 'tinybench';
import { parseOrderRecord, validateOrder, type OrderColumn } from '../src/input/order-record.js';
import { orderLines } from './generate.js';

const { values } = parseArgs({
  options: { 'rows-per-iteration': { type: 'string', default: '1000' }, 'time-ms': { type: 'string', default: '2000' } },
});
const perIteration = Number(values['rows-per-iteration']);

// the same rows as the e2e benchmark (1% missing amounts, 0.1% overflow amounts)
const records: Array<Record<OrderColumn, string>> = [];
const lines = orderLines({ rows: perIteration, seed: 42 });
lines.next(); // header
for (let next = lines.next(); next.done !== true; next = lines.next()) {
  const [source_key = '', customer_id = '', order_date = '', amount = '', currency = ''] = next.value.trimEnd().split(',');
  records.push({ source_key, customer_id, order_date, amount, currency });
}
const parsed = records.map((r) => parseOrderRecord(r)).flatMap((p) => (p.ok ? [p.order] : []));

let sink = 0;
const bench = new Bench({ time: Number(values['time-ms']) });
bench
  .add('parseOrderRecord (zod)', () => {
    for (const r of records) if (parseOrderRecord(r).ok) sink++;
  })
  .add('validateOrder', () => {
    for (const o of parsed) if (validateOrder(o) === null) sink++;
  })
  .add('parse + validate', () => {
    for (const r of records) {
      const p = parseOrderRecord(r);
      if (p.ok && validateOrder(p.order) === null) sink++;
    }
  });
await bench.run();

console.log(`rows per iteration: ${perIteration}`);
for (const task of bench.tasks) {
  const result = task.result as { latency?: { mean: number; rme: number } } | undefined;
  const latency = result?.latency;
  if (latency === undefined) {
    console.log(`${task.name.padEnd(26)} no result`);
    continue;
  }
  const rowsPerSec = (perIteration / latency.mean) * 1000;
  console.log(`${task.name.padEnd(26)} ${(rowsPerSec / 1000).toFixed(0).padStart(6)} k rows/s  (±${latency.rme.toFixed(1)}%)`);
}
if (sink < 0) console.log(sink);
