/**
 * The shared tests' own statements on Oracle (db.sql of test/support/databases.ts), written for
 * PostgreSQL and translated: $n parameters become :pn binds, casts (::type) are dropped,
 * now() and interval 'n unit' are spelled the Oracle way, column names come back lower-case.
 * What a test reads must compare as it does on PostgreSQL:
 *  - every statement is committed (commit() after it): the connection comes from a pool whose
 *    close() rolls back an open transaction (node-oracledb lib/thin/connection.js close), so a
 *    test's setup rows written without a commit would be gone before the loader looks;
 *  - a CLOB column (raw_record, the run events' JSON, messages) comes back as a string, not a
 *    Lob object (fetchTypeHandler, as the engine's own queries, src/engine/oracle/rows.ts);
 *  - a NUMBER column with a scale (amount NUMBER(12, 2)) comes back as canonical decimal text
 *    with that many decimals ('4.00'), as PostgreSQL's numeric::text, never a float; other
 *    NUMBER columns (ids, counts) as JavaScript numbers, as PostgreSQL's bigint in these tests;
 *  - a DATE column (order_date) comes back as its text, 'YYYY-MM-DD' (with ' HH:MI:SS' when it
 *    has a time of day), as PostgreSQL's date::text and this file's dropped casts read it, never
 *    a JavaScript Date: thin mode decodes a DATE into a Date at local midnight
 *    (lib/impl/datahandlers/buffer.js parseOracleDate), which compares equal to no string.
 */
import type { OraColumnMeta, OraConnection, OraExecuteOptions } from '../../src/engine/oracle/oracledb-types.js';

export interface OracleQueryConstants {
  DB_TYPE_NUMBER: unknown;
  DB_TYPE_VARCHAR: unknown;
  DB_TYPE_CLOB: unknown;
  DB_TYPE_DATE: unknown;
  OUT_FORMAT_OBJECT: number;
}

const two = (n: number) => String(n).padStart(2, '0');

/** A DATE as thin mode gives it (a Date of the local time zone), as text. */
export function oracleDateText(value: unknown): unknown {
  if (!(value instanceof Date)) return value;
  const day = `${String(value.getFullYear()).padStart(4, '0')}-${two(value.getMonth() + 1)}-${two(value.getDate())}`;
  const time = [value.getHours(), value.getMinutes(), value.getSeconds()];
  return time.every((t) => t === 0) ? day : `${day} ${time.map(two).join(':')}`;
}

/** A PostgreSQL-written test statement as Oracle takes it. */
export function oracleTestSql(text: string): string {
  return text
    .replace(/::[a-z]+(\[\])?/g, '')
    .replace(/\$(\d+)/g, ':p$1')
    .replace(/\bnow\(\)/gi, 'SYSTIMESTAMP')
    .replace(/interval '(\d+) (second|minute|hour|day)s?'/gi, (_m, n: string, unit: string) => `INTERVAL '${n}' ${unit.toUpperCase()}`);
}

/** Oracle's text of a NUMBER ('4', '.5', '-1.5', '1E+20' never for NUMBER(p, s)) with exactly `scale` decimals. */
export function decimalText(value: string, scale: number): string {
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(value.trim());
  if (m === null) throw new Error(`not a decimal number: ${value}`);
  const [, sign = '', whole = '', fraction = ''] = m;
  if (fraction.length > scale) throw new Error(`${value} has more than ${scale} decimals`);
  return `${sign}${whole === '' ? '0' : whole}${scale > 0 ? `.${fraction.padEnd(scale, '0')}` : ''}`;
}

/** execute() options: objects, CLOBs as strings, scaled NUMBERs as decimal text, DATEs as text (the commit follows). */
export function oracleTestQueryOptions(c: OracleQueryConstants): OraExecuteOptions {
  const fetchTypeHandler = (meta: OraColumnMeta & { scale?: number }) => {
    if (meta.dbType === c.DB_TYPE_CLOB) return { type: c.DB_TYPE_VARCHAR };
    if (meta.dbType === c.DB_TYPE_DATE) return { type: c.DB_TYPE_DATE, converter: oracleDateText };
    if (meta.dbType === c.DB_TYPE_NUMBER && meta.scale !== undefined && meta.scale > 0) {
      const scale = meta.scale;
      return { type: c.DB_TYPE_VARCHAR, converter: (v: unknown) => (typeof v === 'string' ? decimalText(v, scale) : v) };
    }
    return undefined;
  };
  return { autoCommit: false, outFormat: c.OUT_FORMAT_OBJECT, fetchTypeHandler: fetchTypeHandler };
}

/** Run one test statement on `connection` (see the file comment). */
export async function runOracleTestQuery<R>(
  connection: OraConnection,
  c: OracleQueryConstants,
  text: string,
  params: readonly unknown[],
): Promise<R[]> {
  const binds = Object.fromEntries(params.map((v, i) => [`p${i + 1}`, v]));
  const result = await connection.execute(oracleTestSql(text), binds, oracleTestQueryOptions(c));
  // before the pooled connection's close(), which would roll the statement back
  await connection.commit();
  return (result.rows ?? []).map(
    (row) => Object.fromEntries(Object.entries(row as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), v])) as R,
  );
}
