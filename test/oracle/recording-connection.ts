/**
 * A RECORDING pool/connection for the Oracle engine's unit tests. It is not Oracle and runs
 * no SQL: it records every call (SQL text, binds, options) and answers with what the test
 * scripts. Where node-oracledb 6.10 thin mode checks something on the client before sending
 * (read in node_modules/oracledb/lib/connection.js, lib/transformer.js, lib/thin/*), it checks
 * the same thing and throws an error shaped like the driver's:
 *   - executeMany with an empty array                       -> NJS-005
 *   - executeMany of a query / of PL/SQL with batchErrors   -> NJS-157 / NJS-095
 *   - named binds that do not match the SQL's placeholders  -> NJS-098
 *   - a string longer (UTF-8 bytes) than bindDefs.maxSize  -> NJS-058 "... in row n"
 *   - a value whose JS type does not match bindDefs.type    -> NJS-011
 * Batch errors are returned as thin mode builds them: an Error with `offset` and `message`
 * and no `errorNum` (lib/thin/protocol/messages/base.js).
 */
import oracledb from 'oracledb';
import type {
  OraBatchError,
  OraBindDef,
  OraBinds,
  OraConnection,
  OraConstants,
  OraExecuteManyOptions,
  OraExecuteManyResult,
  OraExecuteOptions,
  OraExecuteResult,
  OraPool,
} from '../../src/engine/oracle/oracledb-types.js';

export const constants = oracledb as unknown as OraConstants;
const DB = oracledb as unknown as { DB_TYPE_NUMBER: unknown; DB_TYPE_VARCHAR: unknown; DB_TYPE_CLOB: unknown };

export function driverError(code: string, text: string): Error & { code: string } {
  const error = new Error(`${code}: ${text}`) as Error & { code: string };
  error.code = code;
  return error;
}

/** A batch error entry as thin mode makes it: offset + message, no errorNum, no code. */
export function batchError(offset: number, message: string): OraBatchError {
  return Object.assign(new Error(message), { offset }) as unknown as OraBatchError;
}

/** Named placeholders of a SQL text, skipping string literals, quoted identifiers, comments. */
export function placeholders(sql: string): Set<string> {
  const names = new Set<string>();
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    if (ch === "'" || ch === '"') {
      const end = sql.indexOf(ch, i + 1);
      i = end < 0 ? sql.length : end + 1;
      continue;
    }
    if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end + 1;
      continue;
    }
    if (ch === ':') {
      const m = /^:([A-Za-z][A-Za-z0-9_$#]*)/.exec(sql.slice(i));
      if (m?.[1] !== undefined) {
        names.add(m[1].toLowerCase());
        i += m[0].length;
        continue;
      }
    }
    i++;
  }
  return names;
}

function firstKeyword(sql: string): string {
  return (/[A-Za-z]+/.exec(sql)?.[0] ?? '').toUpperCase();
}

function checkBindNames(sql: string, names: string[]): void {
  const expected = placeholders(sql);
  const given = new Set(names.map((n) => n.toLowerCase()));
  const same = expected.size === given.size && [...expected].every((n) => given.has(n));
  if (!same) throw driverError('NJS-098', `${expected.size} bind placeholders were used in the SQL statement but ${given.size} bind values were provided`);
}

export type Call =
  | { kind: 'execute'; conn: number; sql: string; binds: OraBinds; options: OraExecuteOptions }
  | { kind: 'executeMany'; conn: number; sql: string; binds: OraBinds[]; options: OraExecuteManyOptions }
  | { kind: 'getRows'; conn: number; numRows: number }
  | { kind: 'closeResultSet'; conn: number }
  | { kind: 'commit'; conn: number }
  | { kind: 'rollback'; conn: number }
  | { kind: 'close'; conn: number; drop: boolean };

export interface Script {
  /** Answer an execute(); default: no rows. */
  execute?(sql: string, binds: OraBinds, options: OraExecuteOptions, conn: number): OraExecuteResult | Promise<OraExecuteResult>;
  /** Answer an executeMany() that passed the client-side checks; default: no batch errors. */
  executeMany?(sql: string, binds: OraBinds[], options: OraExecuteManyOptions, conn: number): OraExecuteManyResult | Promise<OraExecuteManyResult>;
  /** Rows served by a result set (claim). */
  resultSetRows?(sql: string, binds: OraBinds): unknown[];
  commit?(conn: number): void;
  rollback?(conn: number): void;
}

export class RecordingConnection implements OraConnection {
  constructor(
    private readonly pool: RecordingPool,
    readonly id: number,
  ) {}

  async execute(sql: string, binds: OraBinds, options: OraExecuteOptions): Promise<OraExecuteResult> {
    this.pool.calls.push({ kind: 'execute', conn: this.id, sql, binds, options });
    checkBindNames(sql, Object.keys(binds));
    const script = this.pool.script;
    if (options.resultSet === true) {
      const rows = script.resultSetRows?.(sql, binds) ?? [];
      let position = 0;
      const calls = this.pool.calls;
      const conn = this.id;
      return {
        resultSet: {
          async getRows(numRows: number) {
            calls.push({ kind: 'getRows', conn, numRows });
            const out = rows.slice(position, position + numRows);
            position += out.length;
            return out;
          },
          async close() {
            calls.push({ kind: 'closeResultSet', conn });
          },
        },
      };
    }
    return (await script.execute?.(sql, binds, options, this.id)) ?? { rows: [] };
  }

  async executeMany(sql: string, binds: OraBinds[], options: OraExecuteManyOptions): Promise<OraExecuteManyResult> {
    this.pool.calls.push({ kind: 'executeMany', conn: this.id, sql, binds, options });
    if (!Array.isArray(binds) || binds.length === 0) throw driverError('NJS-005', 'invalid value for parameter 2');
    const keyword = firstKeyword(sql);
    if (keyword === 'SELECT' || keyword === 'WITH') throw driverError('NJS-157', 'executeMany() cannot be used with SELECT statement or WITH SQL clause');
    if ((keyword === 'BEGIN' || keyword === 'DECLARE') && options.batchErrors === true) {
      throw driverError('NJS-095', 'arrayDMLRowCounts and batchErrors options are only applicable to DML statements');
    }
    const defs = options.bindDefs;
    checkBindNames(sql, Object.keys(defs));
    binds.forEach((row, index) => {
      for (const [name, def] of Object.entries(defs) as [string, OraBindDef][]) {
        const value = row[name];
        if (value === null || value === undefined) continue;
        if (typeof value === 'string') {
          if (def.type !== DB.DB_TYPE_VARCHAR && def.type !== DB.DB_TYPE_CLOB) throw driverError('NJS-011', 'encountered bind value and type mismatch');
          const length = Buffer.byteLength(value);
          if (def.type === DB.DB_TYPE_VARCHAR && (def.maxSize === undefined || length > def.maxSize)) {
            throw driverError('NJS-058', `maxSize of ${def.maxSize ?? 0} is too small for value of length ${length} in row ${index}`);
          }
        } else if (typeof value === 'number') {
          if (def.type !== DB.DB_TYPE_NUMBER) throw driverError('NJS-011', 'encountered bind value and type mismatch');
        } else {
          throw driverError('NJS-011', 'encountered bind value and type mismatch');
        }
      }
    });
    return (await this.pool.script.executeMany?.(sql, binds, options, this.id)) ?? { rowsAffected: binds.length, ...(options.batchErrors === true ? { batchErrors: [] } : {}) };
  }

  async commit(): Promise<void> {
    this.pool.calls.push({ kind: 'commit', conn: this.id });
    this.pool.script.commit?.(this.id);
  }

  async rollback(): Promise<void> {
    this.pool.calls.push({ kind: 'rollback', conn: this.id });
    this.pool.script.rollback?.(this.id);
  }

  async close(options?: { drop?: boolean }): Promise<void> {
    this.pool.calls.push({ kind: 'close', conn: this.id, drop: options?.drop === true });
  }
}

export class RecordingPool implements OraPool {
  readonly calls: Call[] = [];
  private next = 1;
  closed = false;

  constructor(public script: Script = {}) {}

  async getConnection(): Promise<OraConnection> {
    return new RecordingConnection(this, this.next++);
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  executeManyCalls(): Extract<Call, { kind: 'executeMany' }>[] {
    return this.calls.filter((c): c is Extract<Call, { kind: 'executeMany' }> => c.kind === 'executeMany');
  }

  /** A compact trace: "conn:kind:first words of the SQL". */
  trace(): string[] {
    return this.calls.map((c) => {
      if (c.kind === 'execute' || c.kind === 'executeMany') {
        const head = c.sql.replace(/\s+/g, ' ').split(' ').slice(0, 3).join(' ');
        return `${c.conn}:${c.kind}:${head}`;
      }
      return `${c.conn}:${c.kind}`;
    });
  }
}
