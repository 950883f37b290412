import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The run's temporary folder, made by test/support/global-setup.ts and removed after the run. */
    testTempRoot: string;
    /** The run's tag (its start time, base 36): every server database a test makes is named with it. */
    testRunTag: string;
  }
}

/** This test file's folder in the run's temporary folder. */
const dir = mkdtempSync(join(inject('testTempRoot'), 'files-'));
let n = 0;

/** Write a test file and return its path. */
export function writeTestFile(content: string | Buffer, name = `f${++n}.csv`): string {
  const path = join(dir, `${n}-${name}`);
  writeFileSync(path, content);
  return path;
}

export const HEADER = 'source_key,customer_id,order_date,amount,currency';

/** An order file from rows of [key, customer, date, amount, currency]. */
export function orderFile(rows: Array<[string, string, string, string, string]>, header = HEADER): string {
  return writeTestFile(`${header}\n${rows.map((r) => r.join(',')).join('\n')}\n`);
}

export function tempDir(): string {
  return mkdtempSync(join(dir, 'd'));
}
