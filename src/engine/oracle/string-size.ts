import { classifyOracleError } from './classify.js';
import type { OraConnection } from './oracledb-types.js';
import { type OracleKit, queryRows } from './rows.js';

/** VARCHAR2 in SQL under MAX_STRING_SIZE = STANDARD and EXTENDED, in bytes. */
export const STANDARD_VARCHAR_BYTES = 4000;
export const EXTENDED_VARCHAR_BYTES = 32767;

/**
 * The longest VARCHAR2 bind this database takes in SQL (queries/max_string_size.sql, which a
 * plain user can run): 32767 bytes under MAX_STRING_SIZE = EXTENDED, else 4000. An answer
 * that cannot be read, or a query that fails for any reason but a lost connection, counts as
 * STANDARD: long text is then bound as CLOB, which works either way.
 */
export async function detectVarcharLimit(connection: OraConnection, kit: OracleKit): Promise<number> {
  let answer: unknown;
  try {
    answer = (await queryRows(connection, kit, 'max_string_size'))[0]?.MAX_BYTES;
  } catch (error) {
    if (classifyOracleError(error) === 'fatal') throw error;
    return STANDARD_VARCHAR_BYTES;
  }
  return Number(answer) >= EXTENDED_VARCHAR_BYTES ? EXTENDED_VARCHAR_BYTES : STANDARD_VARCHAR_BYTES;
}
