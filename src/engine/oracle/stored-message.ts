import { LIMITS } from './binds.js';
import { cutChars, nonEmpty } from './sql-text.js';

/**
 * A database message as the error log stores it, the rule of the PostgreSQL path
 * (src/engine/postgres/staging.ts refusalMessage): its first line only, quoted text blanked,
 * cut to the column. Oracle 23ai's messages carry row values in quotes and on lines after the
 * first (ORA-03301 after ORA-00001: "row with column values (SOURCE_KEY:'…') already exists";
 * ORA-01722 "…string value containing '…'…"; thin mode's "Help: https://…" line); an error-log
 * message never carries a value. Empty: the code stands for it.
 */
export function storedMessage(message: string, code: string): string {
  const line = (message.trim().split('\n')[0] ?? '').replace(/"[^"]*"/g, '"…"').replace(/'[^']*'/g, "'…'");
  return cutChars(nonEmpty(line.trim(), code), LIMITS.message);
}
