/**
 * Where does `load` spend its time? Runs the pipeline in-process against a fresh bench_*
 * database with every engine primitive timed (wall time of each call, summed), and optionally
 * keeps the database for EXPLAIN ANALYZE.
 *
 *   node dist/bench/profile.js --file F [--db ADMIN_URL] [--chunk-size 2000] [--workers 1] [--keep]
 */
import { parseArgs } from 'node:util';
import { openEngine } from '../src/engine/open.js';
import { parseDbUrl } from '../src/engine/db-url.js';
import type { Engine, EngineTx } from '../src/engine/types.js';
import { OrderLoader } from '../src/loader.js';
import { createLogger } from '../src/log.js';
import { createDatabase, dropDatabase } from './pg-admin.js';

const { values } = parseArgs({
  options: {
    file: { type: 'string' },
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    'chunk-size': { type: 'string', default: '2000' },
    'batch-size': { type: 'string', default: '5000' },
    workers: { type: 'string', default: '1' },
    name: { type: 'string', default: `bench_profile_${process.pid}` },
    keep: { type: 'boolean', default: false },
    'stage-only': { type: 'boolean', default: false },
  },
});
if (values.file === undefined) throw new Error('--file is required');
const name = values.name;
// It is dropped first (a leftover of a killed run) and afterwards: only a database named as ours.
if (!name.startsWith('bench_')) throw new Error(`refusing database name ${name}: --name must start with bench_`);
const adminUrl = values.db;
const url = await createDatabase(adminUrl, name, { replace: true });

const workers = Number(values.workers);
const inner = await openEngine(parseDbUrl(url, process.env), { connections: workers });
await inner.migrate();

const totals = new Map<string, { calls: number; ms: number }>();
const add = (key: string, ms: number) => {
  const t = totals.get(key) ?? { calls: 0, ms: 0 };
  t.calls++;
  t.ms += ms;
  totals.set(key, t);
};
const engine: Engine = Object.create(inner) as Engine;
engine.transaction = <T>(fn: (tx: EngineTx) => Promise<T>) => {
  const t0 = performance.now();
  return inner
    .transaction(async (tx) => {
      const proxy = new Proxy(tx, {
        get(target, prop, receiver) {
          const value: unknown = Reflect.get(target, prop, receiver);
          if (typeof value !== 'function') return value;
          return async (...args: unknown[]) => {
            const s = performance.now();
            try {
              return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
            } finally {
              add(String(prop), performance.now() - s);
            }
          };
        },
      });
      return fn(proxy);
    })
    .finally(() => add('transaction (incl. BEGIN/COMMIT)', performance.now() - t0));
};
engine.classifyError = (e) => inner.classifyError(e);

const loader = OrderLoader.fromEngine(engine, createLogger('warn'));
const t0 = performance.now();
const memTimer = setInterval(() => {
  const m = process.memoryUsage();
  console.log(
    `t=${((performance.now() - t0) / 1000).toFixed(0)}s rss ${(m.rss / 2 ** 20).toFixed(0)} MB heapUsed ${(m.heapUsed / 2 ** 20).toFixed(0)} MB external ${(m.external / 2 ** 20).toFixed(0)} MB`,
  );
}, 5000);
const report = await (values['stage-only'] ? loader.stage.bind(loader) : loader.load.bind(loader))([values.file], {
  chunkSize: Number(values['chunk-size']),
  batchSize: Number(values['batch-size']),
  workers,
});
const wall = performance.now() - t0;
clearInterval(memTimer);
await loader.close();
console.log(
  `wall ${(wall / 1000).toFixed(2)} s  stage ${(report.stageMs / 1000).toFixed(2)} s  process ${(report.processMs / 1000).toFixed(2)} s  exit ${report.exitCode}`,
);
console.log(JSON.stringify(report.files[0]?.tally), JSON.stringify(report.process));
for (const [key, t] of [...totals.entries()].sort((a, b) => b[1].ms - a[1].ms)) {
  console.log(
    `${key.padEnd(36)} ${String(t.calls).padStart(6)} calls  ${(t.ms / 1000).toFixed(2).padStart(8)} s  ${(t.ms / t.calls).toFixed(2).padStart(8)} ms/call`,
  );
}
if (!values.keep) await dropDatabase(adminUrl, name);
else console.log(`kept database ${name}`);
