/**
 * An inbox of several partners through the library: `load(paths, { profiles })`
 * reads each file with the profile whose `match:` takes its name; a file none matches is moved
 * to the failed folder with a note, or left where it is; a name two profiles match refuses the
 * run before anything is written; a changed profile reads its files again; the runs record each
 * file's profile.
 */
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { expect } from 'vitest';
import { UserError } from '../../src/errors.js';
import { loadProfileFile, parseProfileText } from '../../src/input/profile/load-profile.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { HEADER, tempDir } from '../support/files.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/profiles/${name}`, import.meta.url));
const EU = () => loadProfileFile(example('eu-erp.yaml'));
const LEGACY = () => loadProfileFile(example('headerless.yaml'));

/** An inbox with a file for each of two partners (the EU one gzipped) and one no profile matches. */
function partnerInbox(): { dir: string; eu: string; legacy: string; stray: string } {
  const dir = join(tempDir(), 'inbox');
  mkdirSync(dir);
  const eu = join(dir, 'EU_ORDERS_20261201.csv.gz');
  writeFileSync(eu, gzipSync(readFileSync(example('eu-erp.csv'))));
  const legacy = join(dir, 'JP_LEGACY_20261201.csv');
  copyFileSync(example('headerless.csv'), legacy);
  const stray = join(dir, 'orders-from-nobody.csv');
  writeFileSync(stray, `${HEADER}\nN-1,1,2026-12-01,1.00,JPY\n`);
  return { dir, eu, legacy, stray };
}

const KEYS = 'SELECT source_key, currency FROM orders ORDER BY source_key';
const LOADED = [
  { source_key: 'EU-50001', currency: 'EUR' },
  { source_key: 'EU-50002', currency: 'EUR' },
  { source_key: 'EU-50004', currency: 'CHF' },
  { source_key: 'LG-A-1', currency: 'JPY' },
  { source_key: 'LG-A-2', currency: 'JPY' },
  { source_key: 'LG-A-3', currency: 'JPY' },
];

forEachTarget('inbox routing by profile on $kind', () => {
  targetTest(
    "each partner's file with its profile; a file none matches moved to the failed folder with a note (exit 2)",
    async ({ db }) => {
      const { loader } = await db.open();
      const { dir, eu, legacy, stray } = partnerInbox();
      const failedDir = join(dir, 'failed');
      const archiveDir = join(dir, 'archive');
      const profiles = [EU(), LEGACY()];
      const report = await loader.load([eu, legacy, stray], { profiles, failedDir, archiveDir });
      expect(report.exitCode).toBe(2);
      expect(report.aborted).toBeNull();
      expect(report.files.map((f) => [f.file, f.profile?.name, f.profile?.sha256, f.counts.read])).toEqual([
        [eu, 'eu-erp', profiles[0]!.sha256, 3],
        [legacy, 'legacy-jp', profiles[1]!.sha256, 3],
      ]);
      expect(report.profiles).toEqual([
        { name: 'eu-erp', sha256: profiles[0]!.sha256, match: 'EU_ORDERS_*.csv*' },
        { name: 'legacy-jp', sha256: profiles[1]!.sha256, match: 'JP_LEGACY_*.csv*' },
      ]);
      expect(await db.sql(KEYS)).toEqual(LOADED);
      // the stray file: not read (no run, no row), moved beside a note saying why
      expect(report.unmatched).toHaveLength(1);
      const moved = report.unmatched![0]!;
      expect(moved).toMatchObject({
        file: stray,
        reason: 'no load profile matches its name (eu-erp: EU_ORDERS_*.csv*, legacy-jp: JP_LEGACY_*.csv*)',
      });
      expect(moved.movedTo).toMatch(/failed\/\d{8}T\d{6}Z-orders-from-nobody\.csv$/);
      expect(readFileSync(`${moved.movedTo!}.error.txt`, 'utf8')).toContain(
        'reason: no load profile matches its name (eu-erp: EU_ORDERS_*.csv*, legacy-jp: JP_LEGACY_*.csv*)',
      );
      expect(readdirSync(dir).sort()).toEqual(['archive', 'failed']);
      expect(readdirSync(archiveDir).sort()).toEqual([
        `load${report.files[0]!.loadId}-EU_ORDERS_20261201.csv.gz`,
        `load${report.files[1]!.loadId}-JP_LEGACY_20261201.csv`,
      ]);
      expect((await loader.runs()).filter((r) => r.fileName !== null).map((r) => [r.fileName, r.profile?.name])).toEqual([
        [legacy, 'legacy-jp'],
        [eu, 'eu-erp'],
      ]);
    },
  );

  targetTest(
    'without a failed folder the file none matches stays where it is, with a warning; the others load (exit 2)',
    async ({ db }) => {
      const { loader, logs } = await db.open();
      const { dir, eu, legacy, stray } = partnerInbox();
      const report = await loader.load([eu, legacy, stray], { profiles: [EU(), LEGACY()] });
      expect(report.exitCode).toBe(2);
      expect(report.unmatched).toEqual([
        { file: stray, reason: 'no load profile matches its name (eu-erp: EU_ORDERS_*.csv*, legacy-jp: JP_LEGACY_*.csv*)', movedTo: null },
      ]);
      expect(existsSync(stray)).toBe(true);
      expect(readdirSync(dir)).toHaveLength(3);
      expect(logs.records.filter((r) => r.level === 40).map((r) => r.msg)).toContain(
        `${stray}: no load profile matches its name (eu-erp: EU_ORDERS_*.csv*, legacy-jp: JP_LEGACY_*.csv*): not read, left where it is`,
      );
      expect(await db.sql(KEYS)).toEqual(LOADED);
      // every file matched, every row DONE: exit 0
      const clean = await loader.load([eu, legacy], { profiles: [EU(), LEGACY()] });
      expect(clean.exitCode).toBe(0);
      expect(clean.unmatched).toEqual([]);
    },
  );

  targetTest(
    'a name two profiles match refuses the run before anything is written; so do profile and profiles together',
    async ({ db }) => {
      const { loader } = await db.open();
      const { eu, legacy, stray } = partnerInbox();
      const wide = {
        ...parseProfileText(readFileSync(example('headerless.yaml'), 'utf8').replace("'JP_LEGACY_*.csv*'", "'*.csv*'"), 'x', 'x'),
        source: 'all.yaml',
      };
      const runsBefore = (await loader.runs()).length;
      await expect(loader.load([legacy, eu], { profiles: [EU(), wide] })).rejects.toThrow(
        new UserError(
          `${eu}: two load profiles match its name, ${example('eu-erp.yaml')} (match: EU_ORDERS_*.csv*) and all.yaml (match: *.csv*): make their match: patterns take different files; nothing was read`,
        ),
      );
      await expect(loader.load([eu], { profiles: [EU()], profile: LEGACY() })).rejects.toThrow(/profile and profiles together/);
      expect((await loader.runs()).length).toBe(runsBefore);
      expect(await db.sql('SELECT source_key FROM order_stage')).toEqual([]);
      // the dry run routes as the load does
      await expect(loader.dryRun([eu], { profiles: [EU(), wide] })).rejects.toThrow(/two load profiles match its name/);
      const dry = await loader.dryRun([stray, eu, legacy], { profiles: [EU(), LEGACY()] });
      expect(dry.map((r) => [r.file, r.profile?.name, r.counts.read, r.unmatched])).toEqual([
        [stray, undefined, 0, 'no load profile matches its name (eu-erp: EU_ORDERS_*.csv*, legacy-jp: JP_LEGACY_*.csv*)'],
        [eu, 'eu-erp', 3, undefined],
        [legacy, 'legacy-jp', 3, undefined],
      ]);
    },
  );

  targetTest(
    'a changed profile reads its files again; the same profile skips them; the runs record each file’s profile',
    async ({ db }) => {
      const { loader } = await db.open();
      const { eu, legacy } = partnerInbox();
      const first = await loader.load([eu, legacy], { profiles: [EU(), LEGACY()] });
      expect(first.exitCode).toBe(0);
      const same = await loader.load([eu, legacy], { profiles: [EU(), LEGACY()] });
      expect(same.files.map((f) => f.skipped === null)).toEqual([false, false]);
      // the legacy partner's profile changes (its currency): its file is read again, the EU file is still skipped
      const text = readFileSync(example('headerless.yaml'), 'utf8').replace("const: 'JPY'", "const: 'USD'");
      const changed = { ...parseProfileText(text, 'headerless.yaml', 'headerless'), source: 'headerless.yaml' };
      expect(changed.sha256).not.toBe(LEGACY().sha256);
      const reread = await loader.load([eu, legacy], { profiles: [EU(), changed] });
      expect(reread.files.map((f) => [f.profile?.name, f.skipped === null, f.counts.updated])).toEqual([
        ['eu-erp', false, 0],
        ['legacy-jp', true, 3],
      ]);
      expect(reread.files[1]!.loadId).not.toBe(first.files[1]!.loadId);
      expect((await db.sql<{ currency: string }>(KEYS)).map((r) => r.currency)).toEqual(['EUR', 'EUR', 'CHF', 'USD', 'USD', 'USD']);
      const runs = await loader.runs();
      const legacyRuns = runs.filter((r) => r.fileName === legacy).map((r) => r.profile?.sha256);
      expect(legacyRuns).toEqual([changed.sha256, LEGACY().sha256, LEGACY().sha256]);
    },
  );
});
