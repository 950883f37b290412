/**
 * The Oracle job as `vitest list` names it (bench/oracle-job-list.ts): every file it runs a test
 * of is in the statement check's list (test/support/oracle-test-statements.ts), so that each
 * statement those tests send to Oracle goes through the PL/SQL grammar, and docs/oracle.md states
 * its count as npm run docs:oracle-count last wrote it for these tests.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { COUNT_MARKERS, oracleJobCountText, oracleJobTestFiles } from '../../bench/oracle-job-list.js';
import { ORACLE_JOB_TEST_FILES } from '../support/oracle-test-statements.js';

describe("the Oracle job's tests", () => {
  let files: string[] = [];
  beforeAll(() => {
    files = oracleJobTestFiles(process.cwd());
  }, 600_000);

  it('come from the files whose statements the grammar check reads, and only those', () => {
    expect([...new Set(files)].sort((a, b) => a.localeCompare(b))).toEqual([...ORACLE_JOB_TEST_FILES].sort((a, b) => a.localeCompare(b)));
  });

  it('are counted in docs/oracle.md as npm run docs:oracle-count counts them', () => {
    const stated = COUNT_MARKERS.exec(readFileSync('docs/oracle.md', 'utf8'))?.[1];
    expect(stated, 'run npm run docs:oracle-count').toBe(oracleJobCountText(files));
  });
});
