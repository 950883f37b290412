import { describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { createPgliteConnector, pgliteConnectorFor, PGLITE_START_PARAMS } from '../../src/engine/postgres/pglite-connector.js';
import { migratedPgliteDump } from '../support/databases.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { existsSync } from 'node:fs';
import { CLI } from '../support/pglite-template.js';
import { tempDir } from '../support/files.js';

describe('PGlite data folder settings', () => {
  it('caps the WAL kept in the folder and the shared buffers held in memory', async () => {
    // a migrated folder (made by the built CLI; unbuilt, a new one): the settings are those of
    // every open, not only of a new folder's first
    const connector = await createPgliteConnector(existsSync(CLI) ? (await migratedPgliteDb()).dataDir : tempDir());
    try {
      const lease = await connector.acquire();
      try {
        const show = async (name: string) => (await lease.session.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];
        expect(await show('max_wal_size')).toBe('64MB');
        expect(await show('min_wal_size')).toBe('32MB');
        expect(await show('shared_buffers')).toBe('16MB');
        // single-user mode has no WAL writer: the ring holds a transaction's WAL until its commit
        expect(await show('wal_buffers')).toBe('16MB');
        expect(await show('wal_init_zero')).toBe('off');
        // what keeps a kill -9 safe is left as PostgreSQL has it
        expect(await show('full_page_writes')).toBe('on');
        expect(await show('synchronous_commit')).toBe('on');
        // PGlite's own parameters are kept
        expect(await show('max_worker_processes')).toBe('0');
      } finally {
        lease.release();
      }
    } finally {
      await connector.end();
    }
  });

  it('checkpoints between transactions once enough WAL was written (single-user mode never does on its own)', async () => {
    // the same work with the checkpoint threshold at 1 MB and, as the control, never
    const checkpoints = async (thresholdBytes: number) => {
      const db = await PGlite.create({ loadDataDir: await migratedPgliteDump(), startParams: PGLITE_START_PARAMS });
      const connector = pgliteConnectorFor(db, thresholdBytes);
      const redo = async () => (await db.query<{ lsn: string }>('SELECT redo_lsn::text AS lsn FROM pg_control_checkpoint()')).rows[0]?.lsn;
      try {
        await db.exec('CREATE TABLE t (v text)');
        const before = await redo();
        for (let i = 0; i < 12; i++) {
          const lease = await connector.acquire();
          await lease.session.exec("INSERT INTO t SELECT repeat('x', 200) FROM generate_series(1, 2000)");
          lease.release();
        }
        return (await redo()) !== before;
      } finally {
        await connector.end();
      }
    };
    expect(await checkpoints(Number.POSITIVE_INFINITY)).toBe(false);
    expect(await checkpoints(1024 * 1024)).toBe(true);
  });
});
