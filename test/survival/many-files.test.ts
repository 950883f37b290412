/**
 * An inbox holding more files than the process may open (a backlog after an outage, under a
 * low `ulimit -n`): the files are opened one at a time, so the run loads and archives every one
 * of them instead of failing with EMFILE on every night to come.
 * Run it alone:
 *   npm run build && npx vitest run --project survival test/survival/many-files.test.ts
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLEAN_ENV, CLI } from '../support/cli-run.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { assertBuilt, survivalPath } from './harness.js';

const FILES = 260;
/** Enough for node, its modules and PGlite; fewer than the files of the inbox. */
const OPEN_FILE_LIMIT = 200;

describe('survival: an inbox with more files than the open-file limit', () => {
  it(`${FILES} files under ulimit -n ${OPEN_FILE_LIMIT}: every file loaded and archived, exit 0`, async () => {
    assertBuilt();
    const inbox = survivalPath('many-files-inbox');
    mkdirSync(inbox, { recursive: true });
    for (let i = 0; i < FILES; i++) {
      const key = `MF-${String(i).padStart(4, '0')}`;
      writeFileSync(
        join(inbox, `${key}.csv`),
        `source_key,customer_id,order_date,amount,currency\n${key},${i + 1},2026-03-01,${i}.50,EUR\n`,
      );
    }
    const { url } = await migratedPgliteDb();
    const archive = join(inbox, 'archive');
    const command = `ulimit -n ${OPEN_FILE_LIMIT} && exec "${process.execPath}" "${CLI}" load "${inbox}" --db "${url}" --archive-dir "${archive}" --log-level warn --settle 0`;
    const result = spawnSync('/bin/sh', ['-c', command], { encoding: 'utf8', env: CLEAN_ENV, timeout: 240_000 });
    expect(result.stderr).not.toContain('EMFILE');
    expect(result.status, result.stderr.slice(-2000)).toBe(0);
    expect(result.stdout).toContain(`processed ${FILES} rows`);
    expect(readdirSync(archive)).toHaveLength(FILES);
    expect(readdirSync(inbox).filter((n) => n.endsWith('.csv'))).toEqual([]);
  });
});
