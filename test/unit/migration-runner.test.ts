/**
 * runMigrations (src/engine/migrations.ts) over recording hooks: a database whose bookkeeping
 * table records every migration is not migrated under the lock (no lock, no round trips of its
 * own); a database missing one, or without the table, is.
 */
import { describe, expect, it } from 'vitest';
import { runMigrations, type MigrationHooks } from '../../src/engine/migrations.js';
import { listMigrations } from '../../src/sql-files.js';

const ALL = listMigrations('postgres').map((m) => m.version);

function recordingHooks(recorded: number[] | null): { hooks: MigrationHooks<string>; calls: string[] } {
  const calls: string[] = [];
  const applied = new Set(recorded ?? []);
  const hooks: MigrationHooks<string> = {
    sqlFolder: 'postgres',
    serialised: async (work) => {
      calls.push('serialised');
      return work('connection');
    },
    appliedVersions: () => Promise.resolve(new Set(applied)),
    appliedUnlocked: () => {
      calls.push('appliedUnlocked');
      return Promise.resolve(recorded === null ? null : new Set(recorded));
    },
    statements: (migration) => [migration.name],
    applyStatement: (_, statement) => {
      calls.push(`apply ${statement}`);
      return Promise.resolve();
    },
    record: (_, migration) => {
      applied.add(migration.version);
      return Promise.resolve();
    },
  };
  return { hooks, calls };
}

describe('runMigrations', () => {
  it('every migration recorded: one unlocked read, nothing serialised, nothing applied', async () => {
    const { hooks, calls } = recordingHooks(ALL);
    expect(await runMigrations(hooks)).toEqual([]);
    expect(calls).toEqual(['appliedUnlocked']);
  });

  it('one migration not recorded: applied under the lock, only that one', async () => {
    const last = listMigrations('postgres').at(-1)!;
    const { hooks, calls } = recordingHooks(ALL.filter((v) => v !== last.version));
    expect(await runMigrations(hooks)).toEqual([last.name]);
    expect(calls).toEqual(['appliedUnlocked', 'serialised', `apply ${last.name}`]);
  });

  it('no bookkeeping table yet: every migration applied under the lock', async () => {
    const { hooks, calls } = recordingHooks(null);
    expect(await runMigrations(hooks)).toHaveLength(ALL.length);
    expect(calls.slice(0, 2)).toEqual(['appliedUnlocked', 'serialised']);
  });
});
