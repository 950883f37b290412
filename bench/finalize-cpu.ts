/**
 * The DONE update (order_loader_finalize_done) alone, per index layout of order_stage, measured
 * by the server's CPU and WAL rather than wall time (the machine is shared: wall time says more
 * about the neighbours than about the statement). For each layout, in a fresh migrated bench_*
 * database: `--rows` READY rows of one load (plain INSERT … generate_series, then ANALYZE, as a
 * load leaves them), then chunks of `--chunk` rows claimed (order_loader_claim) and finalized
 * DONE in their own transaction, as a worker does (without the MERGE, which does not touch
 * order_stage). Per chunk: the backend's CPU (utime + stime of /proc/self/stat, read through
 * pg_read_file: the server must be on Linux and we must be superuser) and the WAL written
 * (pg_current_wal_insert_lsn) around the finalize call only; the HOT share from
 * pg_stat_xact_user_tables before COMMIT. One chunk in the middle is finalized through
 * EXPLAIN (ANALYZE, BUFFERS, WAL, TIMING OFF) of the function's UPDATE instead, for its buffer
 * counts (not in the CPU sum). Layouts alternate from round to round.
 *
 *   node dist/bench/finalize-cpu.js [--db ADMIN_URL] [--rows 300000] [--chunk 2000] [--rounds 2]
 *     [--layouts load_status,brin,brin_multi,load,no_status_index]
 */
import { parseArgs } from 'node:util';
import pg from 'pg';
import { withBenchDatabase } from './bench-database.js';

const { values } = parseArgs({
  options: {
    db: { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/postgres' },
    rows: { type: 'string', default: '300000' },
    chunk: { type: 'string', default: '2000' },
    rounds: { type: 'string', default: '2' },
    layouts: { type: 'string', default: 'load_status,brin,brin_multi,load,no_status_index' },
  },
});
const rows = Number(values.rows);
const chunk = Number(values.chunk);
const TICKS = 100; // USER_HZ on Linux

/**
 * The indexes of order_stage besides its constraints, per layout. `load_status` is the layout of
 * migrations 001-010; `brin` is migration 009's (`brin_multi` the same with minmax-multi summaries); `load` a plain btree on load_id; `no_status_index`
 * (a measurement only, the claim, `retry` and the release need their partial indexes) has no
 * index whose key or predicate names process_status, so a READY → DONE update may be HOT.
 */
const LAYOUTS: Record<string, string[]> = {
  load_status: [
    'CREATE INDEX ix_order_stage_load ON order_stage (load_id, process_status)',
    "CREATE INDEX ix_order_stage_claimable ON order_stage (stage_id) WHERE process_status IN ('READY', 'RETRY_WAIT')",
    "CREATE INDEX ix_order_stage_error ON order_stage (stage_id) WHERE process_status = 'ERROR'",
    "CREATE INDEX ix_order_stage_held ON order_stage (load_id) WHERE process_status = 'HELD'",
  ],
  brin: [
    'CREATE INDEX ix_order_stage_load ON order_stage USING brin (load_id) WITH (pages_per_range = 32)',
    "CREATE INDEX ix_order_stage_claimable ON order_stage (stage_id) WHERE process_status IN ('READY', 'RETRY_WAIT')",
    "CREATE INDEX ix_order_stage_error ON order_stage (stage_id) WHERE process_status = 'ERROR'",
    "CREATE INDEX ix_order_stage_held ON order_stage (load_id) WHERE process_status = 'HELD'",
  ],
  brin_multi: [
    'CREATE INDEX ix_order_stage_load ON order_stage USING brin (load_id int8_minmax_multi_ops) WITH (pages_per_range = 32)',
    "CREATE INDEX ix_order_stage_claimable ON order_stage (stage_id) WHERE process_status IN ('READY', 'RETRY_WAIT')",
    "CREATE INDEX ix_order_stage_error ON order_stage (stage_id) WHERE process_status = 'ERROR'",
    "CREATE INDEX ix_order_stage_held ON order_stage (load_id) WHERE process_status = 'HELD'",
  ],
  load: [
    'CREATE INDEX ix_order_stage_load ON order_stage (load_id)',
    "CREATE INDEX ix_order_stage_claimable ON order_stage (stage_id) WHERE process_status IN ('READY', 'RETRY_WAIT')",
    "CREATE INDEX ix_order_stage_error ON order_stage (stage_id) WHERE process_status = 'ERROR'",
    "CREATE INDEX ix_order_stage_held ON order_stage (load_id) WHERE process_status = 'HELD'",
  ],
  no_status_index: ['CREATE INDEX ix_order_stage_load ON order_stage (load_id)'],
};

interface Run {
  layout: string;
  rows: number;
  cpuS: number;
  walBytes: number;
  hot: number;
  updated: number;
  buffers: string;
  indexBytes: number;
}

/** The one value of a one-row query. */
function only<T>(rows: T[]): T {
  const [row] = rows;
  if (row === undefined) throw new Error('expected one row');
  return row;
}

async function cpuS(client: pg.Client): Promise<number> {
  const stat = only((await client.query<{ s: string }>("SELECT pg_read_file('/proc/self/stat') AS s")).rows).s;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS; // utime, stime (fields 14 and 15 of stat)
}

async function walLsn(client: pg.Client): Promise<string> {
  return only((await client.query<{ l: string }>('SELECT pg_current_wal_insert_lsn()::text AS l')).rows).l;
}

async function walSince(client: pg.Client, lsn: string): Promise<number> {
  const { rows: r } = await client.query<{ b: string }>('SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), $1::pg_lsn)::bigint AS b', [
    lsn,
  ]);
  return Number(only(r).b);
}

async function measure(layout: string, round: number): Promise<Run> {
  const ddl = LAYOUTS[layout];
  if (ddl === undefined) throw new Error(`unknown layout ${layout}`);
  return withBenchDatabase({ adminUrl: values.db, keep: false }, `fincpu_${layout}_${round}`, async (url) => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const existing = await client.query<{ indexname: string }>(
        "SELECT indexname FROM pg_indexes WHERE tablename = 'order_stage' AND indexname NOT IN ('pk_order_stage', 'uq_order_stage_source')",
      );
      for (const { indexname } of existing.rows) await client.query(`DROP INDEX ${indexname}`);
      for (const statement of ddl) await client.query(statement);
      await client.query(
        `INSERT INTO order_stage (source_key, customer_id, order_date, amount, currency, load_id, line_no)
         SELECT 'SRC-' || lpad(g::text, 9, '0'), 1000 + g % 5000, date '2024-01-01' + g % 365, (g % 100000) / 100.0, 'EUR', 1, g + 1
           FROM generate_series(1, $1::int) g`,
        [rows],
      );
      await client.query('ANALYZE order_stage');
      // as after staging (queries/analyze_stage.sql): the new block ranges summarized, so that
      // each DONE update checks its range's summary as it will in a real load
      if (layout.startsWith('brin')) await client.query("SELECT brin_summarize_new_values('ix_order_stage_load')");
      const run: Run = { layout, rows: 0, cpuS: 0, walBytes: 0, hot: 0, updated: 0, buffers: '', indexBytes: 0 };
      let after = 0;
      for (let n = 0; ; n++) {
        await client.query('BEGIN');
        const claimed = await client.query<{ stage_id: string }>('SELECT stage_id FROM order_loader_claim($1::bigint, $2::integer, NULL)', [
          after,
          chunk,
        ]);
        const ids = claimed.rows.map((r) => Number(r.stage_id));
        if (ids.length === 0) {
          await client.query('COMMIT');
          break;
        }
        after = ids[ids.length - 1] ?? after;
        if (n === Math.floor(rows / chunk / 2)) {
          // the function's UPDATE, with the function's settings, for its buffer counts
          await client.query('SET LOCAL enable_seqscan = off; SET LOCAL enable_hashjoin = off; SET LOCAL enable_mergejoin = off');
          const plan = await client.query<{ 'QUERY PLAN': string }>(
            `EXPLAIN (ANALYZE, BUFFERS, WAL, TIMING OFF)
             UPDATE order_stage SET process_status = 'DONE', attempt_count = attempt_count + 1, batch_id = $2,
                    processed_at = now(), updated_at = now(), error_code = NULL, error_message = NULL, next_attempt_at = NULL
              WHERE stage_id = ANY ($1::bigint[])`,
            [ids, `b${n}`],
          );
          run.buffers = plan.rows
            .map((r) => r['QUERY PLAN'])
            .filter((l) => /Buffers|WAL/.test(l))
            .slice(0, 2)
            .map((l) => l.trim())
            .join('; ');
        } else {
          const c0 = await cpuS(client);
          const lsn = await walLsn(client);
          await client.query('SELECT order_loader_finalize_done($1::bigint[], $2::text)', [ids, `b${n}`]);
          run.walBytes += await walSince(client, lsn);
          run.cpuS += (await cpuS(client)) - c0;
          run.rows += ids.length;
        }
        const stats = await client.query<{ upd: string; hot: string }>(
          "SELECT n_tup_upd AS upd, n_tup_hot_upd AS hot FROM pg_stat_xact_user_tables WHERE relname = 'order_stage'",
        );
        run.updated += Number(stats.rows[0]?.upd ?? 0);
        run.hot += Number(stats.rows[0]?.hot ?? 0);
        await client.query('COMMIT');
      }
      const size = await client.query<{ b: string }>(
        "SELECT coalesce(sum(pg_relation_size(indexrelid)), 0)::bigint AS b FROM pg_index WHERE indrelid = 'order_stage'::regclass",
      );
      run.indexBytes = Number(only(size.rows).b);
      return run;
    } finally {
      await client.end();
    }
  });
}

const layouts = values.layouts.split(',');
const runs: Run[] = [];
for (let round = 1; round <= Number(values.rounds); round++) {
  const order = round % 2 === 1 ? layouts : [...layouts].reverse();
  for (const layout of order) {
    const r = await measure(layout, round);
    runs.push(r);
    process.stdout.write(
      `${layout.padEnd(16)} ${r.rows} rows  server CPU ${((r.cpuS * 1e6) / r.rows).toFixed(1)} µs/row  ` +
        `WAL ${(r.walBytes / r.rows).toFixed(0)} B/row  HOT ${((100 * r.hot) / Math.max(1, r.updated)).toFixed(0)} %  ` +
        `indexes ${(r.indexBytes / 2 ** 20).toFixed(1)} MiB  [one chunk: ${r.buffers}]\n`,
    );
  }
}
for (const layout of layouts) {
  const of = runs.filter((r) => r.layout === layout);
  const us = of.reduce((s, r) => s + (r.cpuS * 1e6) / r.rows, 0) / of.length;
  process.stdout.write(`mean ${layout.padEnd(16)} ${us.toFixed(1)} µs/row over ${of.length} round(s)\n`);
}
