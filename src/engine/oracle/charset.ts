import { UserError } from '../../errors.js';
import { oracleCodesOf } from './classify.js';
import type { OraConnection } from './oracledb-types.js';
import { type OracleKit, queryRows, text } from './rows.js';

/**
 * The database character set must be AL32UTF8. node-oracledb thin mode always sends text as
 * UTF-8 (it declares AL32UTF8 as the client character set); a database in another character
 * set converts it on arrival, and a character it cannot store becomes a replacement character
 * (? or ¿): two distinct source keys can then collapse into one, and an order can be
 * merged into another. `?charset_check=off` skips this for files known to be plain ASCII.
 */
/** The refusal is one line without quotes (the CLI blanks quoted text in database errors). */
export async function checkDatabaseCharset(connection: OraConnection, kit: OracleKit): Promise<void> {
  let charset: string | null;
  try {
    charset = text((await queryRows(connection, kit, 'database_charset'))[0]?.VALUE);
  } catch (error) {
    const codes = oracleCodesOf(error);
    if (!codes.includes('ORA-00942') && !codes.includes('ORA-01031')) throw error;
    throw new UserError(
      `oracle: cannot read NLS_CHARACTERSET from nls_database_parameters (${codes[0] ?? 'no error code'}): grant SELECT on it, or add ?charset_check=off to the URL if the files are plain ASCII`,
      { cause: error },
    );
  }
  if (charset !== 'AL32UTF8') {
    throw new UserError(
      `oracle: the database character set is ${charset ?? '(not found)'}, not AL32UTF8: text is sent as UTF-8 and characters the database cannot store are replaced (by ? or ¿), so two distinct source keys can collapse into one; use an AL32UTF8 database, or add ?charset_check=off to the URL if the files are plain ASCII`,
    );
  }
}
