/**
 * A PGlite folder left by a command killed (kill -9) while PGlite was starting, after it created
 * postmaster.pid and before it wrote it: PostgreSQL refuses to start on an empty lock file, so
 * before the fix every later command failed with "PGlite failed to initialize properly" until the
 * file was removed by hand (found by killing `load` at random instants, 0.4-1 s after its start).
 * The connector removes an empty postmaster.pid under its folder lock (pglite-connector.ts).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createPgliteConnector } from '../../src/engine/postgres/pglite-connector.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { CLI } from '../support/pglite-template.js';
import { tempDir } from '../support/files.js';

async function selectOne(dataDir: string): Promise<unknown> {
  const connector = await createPgliteConnector(dataDir);
  try {
    const lease = await connector.acquire();
    try {
      return (await lease.session.query<{ one: number }>('SELECT 1 AS one')).rows[0]?.one;
    } finally {
      lease.release();
    }
  } finally {
    await connector.end();
  }
}

describe('a PGlite folder whose postmaster.pid a killed command left empty', () => {
  it('opens, and the empty lock file is gone', async () => {
    // a migrated folder (made by the built CLI; unbuilt, a new one made by the first open)
    const dataDir = existsSync(CLI) ? (await migratedPgliteDb()).dataDir : tempDir();
    expect(await selectOne(dataDir)).toBe(1);
    writeFileSync(join(dataDir, 'postmaster.pid'), '');
    expect(await selectOne(dataDir)).toBe(1);
    expect(existsSync(join(dataDir, 'postmaster.pid'))).toBe(false);
  });

  it('leaves a lock file with content to PGlite (opened as before)', async () => {
    const dataDir = existsSync(CLI) ? (await migratedPgliteDb()).dataDir : tempDir();
    expect(await selectOne(dataDir)).toBe(1);
    writeFileSync(join(dataDir, 'postmaster.pid'), '-42\n');
    expect(await selectOne(dataDir)).toBe(1);
  });
});
