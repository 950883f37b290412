/**
 * A file's staging counts. A module of its own: a dry run counts the same way without the
 * staging pipeline (src/pipeline/stage.ts) being loaded.
 */
export interface FileStageCounts {
  /** Data lines read (records and rejected lines), this run. */
  read: number;
  /** New rows in order_stage. */
  inserted: number;
  /** Existing rows whose values changed: READY again. */
  updated: number;
  /** Rows identical to the stage: untouched. */
  unchanged: number;
  /** Of those, rows still in ERROR. */
  unchangedError: number;
  /** Lines overridden by a later line with the same source_key. */
  duplicates: number;
  /** Lines rejected while parsing, or refused by the database while staging (each in the error log with its line and raw text). */
  rejected: number;
}

export function isStageCounts(value: unknown): value is FileStageCounts {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return Object.keys(emptyStageCounts()).every((k) => typeof v[k] === 'number');
}

export function emptyStageCounts(): FileStageCounts {
  return { read: 0, inserted: 0, updated: 0, unchanged: 0, unchangedError: 0, duplicates: 0, rejected: 0 };
}
