/**
 * The database compared with the state computed from the input files (test/support/expected-state.ts):
 * `orders`, `order_stage` (status, error code, values, attempt count, and the file and line each row
 * points at) and the error log (every rejected line with its file, line number and code, every
 * processing failure of the version staged, each exactly once), and every line of every file
 * accounted for. Works on any PostgreSQL-family database the test can query (server PostgreSQL,
 * or a PGlite folder opened after the loader closed it).
 *
 * Returns readable violations (empty = the database holds what the files say), each with a sample
 * of the keys or lines concerned.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import {
  canonicalDecimal,
  expectedState,
  fileLines,
  refusedWhileStaging,
  type ExpectedState,
  type InputFile,
  type OrderValues,
  type SiteRules,
} from './expected-state.js';
import type { Sql } from './invariants.js';
import { neutralCode } from './engine-expect.js';

const SAMPLE = 5;

function sample(values: string[]): string {
  const shown = values.slice(0, SAMPLE);
  return values.length > SAMPLE ? `${shown.join('; ')}; … (${values.length} in all)` : shown.join('; ');
}

interface StageDbRow {
  source_key: string;
  process_status: string;
  error_code: string | null;
  customer_id: string | null;
  order_date: string | null;
  amount: string | null;
  currency: string | null;
  attempt_count: number | string;
  load_id: number | string | null;
  line_no: number | string | null;
}

interface ErrorDbRow {
  phase: string;
  error_code: string | null;
  load_id: number | string | null;
  line_no: number | string | null;
  source_key: string | null;
  raw_record: string | null;
}

function dbValues(r: {
  customer_id: string | null;
  order_date: string | null;
  amount: string | null;
  currency: string | null;
}): OrderValues {
  return {
    customerId: r.customer_id,
    orderDate: r.order_date,
    amount: r.amount === null ? null : canonicalDecimal(r.amount),
    currency: r.currency,
  };
}

function show(v: OrderValues | undefined): string {
  return v === undefined ? 'none' : `${v.customerId ?? '∅'},${v.orderDate ?? '∅'},${v.amount ?? '∅'},${v.currency ?? '∅'}`;
}

/** The file name of each load (its load_run's file_name, without the folder). */
async function loadFiles(sql: Sql): Promise<Map<number, string>> {
  const runs = await sql<{ run_id: number | string; file_name: string | null }>(
    'SELECT run_id, file_name FROM load_run WHERE file_name IS NOT NULL',
  );
  return new Map(runs.map((r) => [Number(r.run_id), (r.file_name ?? '').split('/').pop() ?? '']));
}

const SELECT_STAGE = `SELECT source_key, process_status, error_code, customer_id::text AS customer_id, order_date::text AS order_date,
  amount::text AS amount, currency, attempt_count, load_id, line_no FROM order_stage`;
const SELECT_ORDERS = `SELECT source_key, customer_id::text AS customer_id, order_date::text AS order_date, amount::text AS amount, currency FROM orders`;

/** Violations of the file-computed state; empty when `orders`, `order_stage` and the error log hold exactly it. */
export async function compareWithFiles(sql: Sql, expected: ExpectedState): Promise<string[]> {
  const violations: string[] = [];
  const files = await loadFiles(sql);
  const fileOf = (loadId: number | string | null) => (loadId === null ? '?' : (files.get(Number(loadId)) ?? `load ${String(loadId)}`));

  // order_stage: one row per key, as computed
  const stageRows = await sql<StageDbRow>(SELECT_STAGE);
  const seen = new Set<string>();
  const wrong: Record<string, string[]> = { status: [], values: [], place: [], attempts: [] };
  for (const r of stageRows) {
    seen.add(r.source_key);
    const e = expected.stage.get(r.source_key);
    if (e === undefined) continue;
    if (r.process_status !== e.status || neutralCode(r.error_code) !== e.errorCode)
      wrong.status?.push(`${r.source_key}: ${r.process_status}/${r.error_code ?? '-'}, expected ${e.status}/${e.errorCode ?? '-'}`);
    const values = dbValues(r);
    if (show(values) !== show(e.values)) wrong.values?.push(`${r.source_key}: ${show(values)}, expected ${show(e.values)}`);
    const place = `${fileOf(r.load_id)}:${String(r.line_no)}`;
    if (place !== `${e.file}:${e.lineNo}`) wrong.place?.push(`${r.source_key}: ${place}, expected ${e.file}:${e.lineNo}`);
    const attempts = e.attempts;
    if (Number(r.attempt_count) !== attempts) wrong.attempts?.push(`${r.source_key}: ${r.attempt_count}, expected ${attempts}`);
  }
  const missing = [...expected.stage.keys()].filter((k) => !seen.has(k));
  const extra = [...seen].filter((k) => !expected.stage.has(k));
  if (stageRows.length !== seen.size)
    violations.push(`order_stage holds a source_key more than once (${stageRows.length} rows, ${seen.size} keys)`);
  if (missing.length > 0) violations.push(`keys of the files missing from order_stage: ${sample(missing)}`);
  if (extra.length > 0) violations.push(`order_stage rows whose key no staged line has: ${sample(extra)}`);
  if (wrong.status?.length) violations.push(`order_stage status/error_code not the files': ${sample(wrong.status)}`);
  if (wrong.values?.length) violations.push(`order_stage values not the winning line's: ${sample(wrong.values)}`);
  if (wrong.place?.length)
    violations.push(`order_stage rows pointing at another line than the winning one (file:line): ${sample(wrong.place)}`);
  if (wrong.attempts?.length) violations.push(`order_stage attempt_count not the processing attempts: ${sample(wrong.attempts)}`);

  // orders: per key, the last merged line's values
  const orderRows = await sql<{ source_key: string; customer_id: string; order_date: string; amount: string; currency: string }>(
    SELECT_ORDERS,
  );
  const ordered = new Map(orderRows.map((r) => [r.source_key, dbValues(r)]));
  const missingOrders = [...expected.orders.keys()].filter((k) => !ordered.has(k));
  const extraOrders = [...ordered.keys()].filter((k) => !expected.orders.has(k));
  const differing = [...expected.orders]
    .filter(([k, v]) => ordered.has(k) && show(ordered.get(k)) !== show(v))
    .map(([k, v]) => `${k}: ${show(ordered.get(k))}, expected ${show(v)}`);
  if (orderRows.length !== ordered.size) violations.push('orders holds a source_key more than once');
  if (missingOrders.length > 0) violations.push(`orders missing (their last merged line was valid): ${sample(missingOrders)}`);
  if (extraOrders.length > 0)
    violations.push(`orders that no merged line gives: ${sample(extraOrders.map((k) => `${k}=${show(ordered.get(k))}`))}`);
  if (differing.length > 0) violations.push(`orders holding another line's values than the last merged one: ${sample(differing)}`);

  // the error log: each expected row exactly once
  const errorRows = await sql<ErrorDbRow>('SELECT phase, error_code, load_id, line_no, source_key, raw_record FROM order_bulk_error');
  const id = (phase: string, code: string | null, file: string, line: number | string | null, key: string | null) =>
    `${phase} ${code ?? '-'} ${file}:${String(line)} ${key ?? '(no key)'}`;
  const want = new Map<string, number>();
  for (const e of expected.errorLog) {
    const k = id(e.phase, e.code, e.file, e.lineNo, e.key);
    want.set(k, (want.get(k) ?? 0) + 1);
  }
  const got = new Map<string, number>();
  for (const r of errorRows) {
    const k = id(r.phase, neutralCode(r.error_code), fileOf(r.load_id), r.line_no, r.source_key);
    got.set(k, (got.get(k) ?? 0) + 1);
  }
  const absent = [...want].filter(([k, n]) => (got.get(k) ?? 0) < n).map(([k, n]) => `${k} ×${n - (got.get(k) ?? 0)}`);
  // a row that may be there (expected.maybeErrorLog) once more
  const allowed = new Map(want);
  for (const e of expected.maybeErrorLog) {
    const k = id(e.phase, e.code, e.file, e.lineNo, e.key);
    allowed.set(k, (allowed.get(k) ?? 0) + 1);
  }
  const surplus = [...got].filter(([k, n]) => n > (allowed.get(k) ?? 0)).map(([k, n]) => `${k} ×${n - (allowed.get(k) ?? 0)}`);
  if (absent.length > 0) violations.push(`error-log rows missing: ${sample(absent)}`);
  if (surplus.length > 0) violations.push(`error-log rows not expected (or repeated): ${sample(surplus)}`);
  const noRaw = errorRows.filter((r) => r.phase === 'PARSE' && r.raw_record === null);
  if (noRaw.length > 0)
    violations.push(
      `PARSE error-log rows without the line's raw text: ${sample(noRaw.map((r) => id(r.phase, r.error_code, fileOf(r.load_id), r.line_no, r.source_key)))}`,
    );
  return violations;
}

/**
 * Every line is accounted for (docs/ARCHITECTURE.md section 2), over several files loaded in
 * the given order: each data line of each order file is the line its key's stage row points at,
 * or a PARSE error-log row of its file and line, or overridden by a later line of the same key
 * (later in its file, or in a later file) that reached the stage. Computed from the files and
 * the database only (not from expected-state's outcome; with `rules`, a line the site's CHECK on
 * order_stage refuses is no line that reached the stage). Returns "file:line" of each line left.
 */
export async function unaccountedFileLines(sql: Sql, filesInLoadOrder: InputFile[], rules: SiteRules = {}): Promise<string[]> {
  const files = await loadFiles(sql);
  const fileOf = (loadId: number | string | null) => (loadId === null ? '?' : (files.get(Number(loadId)) ?? '?'));
  const accounted = new Set<string>();
  for (const r of await sql<{ load_id: number | string | null; line_no: number | string | null }>(
    'SELECT load_id, line_no FROM order_stage',
  ))
    accounted.add(`${fileOf(r.load_id)}:${String(r.line_no)}`);
  for (const r of await sql<{ load_id: number | string | null; line_no: number | string | null }>(
    "SELECT load_id, line_no FROM order_bulk_error WHERE phase = 'PARSE' AND line_no IS NOT NULL AND raw_record IS NOT NULL",
  ))
    accounted.add(`${fileOf(r.load_id)}:${String(r.line_no)}`);
  // walking backwards: a line is overridden when a later line of its key reached the stage
  const laterKeys = new Set<string>();
  const left: string[] = [];
  for (const file of [...filesInLoadOrder].reverse()) {
    const outcomes = fileLines(file);
    if (outcomes === null) continue;
    for (const o of [...outcomes].reverse()) {
      const here = `${file.name}:${o.lineNo}`;
      const overridden = o.kind !== 'rejected' && laterKeys.has(o.key);
      if (!accounted.has(here) && !overridden) left.push(here);
      // a line the site's CHECK refused never reached the stage: it overrides nothing
      if (o.kind !== 'rejected' && !refusedWhileStaging(o, rules)) laterKeys.add(o.key);
    }
  }
  return left.reverse();
}

/**
 * One order file (plain CSV) loaded into a database that held nothing else, to its end:
 * `compareWithFiles` against the state computed from it, and its lines accounted for.
 */
export async function compareWithFile(sql: Sql, path: string): Promise<string[]> {
  const file: InputFile = { name: basename(path), text: readFileSync(path, 'utf8') };
  const violations = await compareWithFiles(sql, expectedState([[file]]));
  const left = await unaccountedFileLines(sql, [file]);
  if (left.length > 0) violations.push(`lines not accounted for: ${sample(left)}`);
  return violations;
}
