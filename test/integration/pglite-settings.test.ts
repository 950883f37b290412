import { describe, expect, it } from 'vitest';
import { createPgliteConnector } from '../../src/engine/postgres/pglite-connector.js';
import { tempDir } from '../support/files.js';

describe('PGlite data folder settings', () => {
  it('caps the WAL kept in the folder and the shared buffers held in memory', async () => {
    const connector = await createPgliteConnector(tempDir());
    try {
      const lease = await connector.acquire();
      try {
        const show = async (name: string) => (await lease.session.query<Record<string, string>>(`SHOW ${name}`)).rows[0]?.[name];
        expect(await show('max_wal_size')).toBe('64MB');
        expect(await show('min_wal_size')).toBe('32MB');
        expect(await show('shared_buffers')).toBe('64MB');
        // PGlite's own parameters are kept
        expect(await show('max_worker_processes')).toBe('0');
      } finally {
        lease.release();
      }
    } finally {
      await connector.end();
    }
  });
});
