/**
 * Make the ready-made database (pglite-ready.ts) into dist/pglite-ready/: run by `npm run build`
 * (`node dist/src/engine/postgres/pglite-ready-build.js [folder]`). PGlite's initdb in memory,
 * the PostgreSQL migrations, template0 and template1 dropped, a CHECKPOINT, then its data folder
 * as a gzipped tar beside a manifest (the recipe, PGlite's version, each migration's name and
 * sha256). When the manifest there
 * already says the same, nothing is made again (a build costs no initdb unless PGlite or a
 * migration changed). Written under temporary names, then renamed: the manifest last.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { createPostgresEngine } from './index.js';
import { pgliteFsBundle } from './pglite-assets.js';
import { pgliteConnectorFor, PGLITE_PARSERS, PGLITE_START_PARAMS } from './pglite-connector.js';
import { currentManifest, readyMadeFolder, readyMadePaths, type ReadyMadeManifest } from './pglite-ready.js';

/** Make it in `folder` unless it is there for the current PGlite and migrations; returns whether it was made. */
export async function buildReadyMade(folder = readyMadeFolder()): Promise<boolean> {
  const manifest = currentManifest();
  const paths = readyMadePaths(folder);
  if (existsSync(paths.archive) && existsSync(paths.manifest)) {
    try {
      if (JSON.stringify(JSON.parse(readFileSync(paths.manifest, 'utf8')) as ReadyMadeManifest) === JSON.stringify(manifest)) return false;
    } catch {
      // unreadable: made again below
    }
  }
  const db = await PGlite.create({ parsers: PGLITE_PARSERS, startParams: PGLITE_START_PARAMS, fsBundle: await pgliteFsBundle() });
  let tar: Uint8Array;
  try {
    const applied = await createPostgresEngine(pgliteConnectorFor(db)).migrate();
    if (applied.join('\n') !== manifest.migrations.map((m) => m.name).join('\n'))
      throw new Error(`the migrations applied (${applied.join(', ')}) are not the ones listed`);
    // Without template0 and template1: the loader's database is `postgres` and nothing creates a
    // database in a PGlite folder. 26 MB to write instead of 41 MB, and a pglite:memory command
    // (which PGlite loads the archive into) peaks about 60–70 MB lower: bench --rows 2000 at
    // 396–409 MB instead of 458–478 MB (bench/RESULTS.md, run 14).
    await db.exec("UPDATE pg_database SET datistemplate = false WHERE datname IN ('template0', 'template1')");
    for (const statement of ['DROP DATABASE template0', 'DROP DATABASE template1', 'CHECKPOINT']) await db.exec(statement);
    tar = new Uint8Array(await (await db.dumpDataDir('none')).arrayBuffer());
  } finally {
    await db.close();
  }
  mkdirSync(folder, { recursive: true });
  const partial = `.${process.pid}.partial`;
  writeFileSync(paths.archive + partial, gzipSync(tar, { level: 9 }));
  writeFileSync(paths.manifest + partial, `${JSON.stringify(manifest, null, 2)}\n`);
  renameSync(paths.archive + partial, paths.archive);
  renameSync(paths.manifest + partial, paths.manifest);
  return true;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const folder = process.argv[2] ?? readyMadeFolder();
  const made = await buildReadyMade(folder);
  process.stdout.write(
    made ? `ready-made PGlite database written to ${folder}\n` : `ready-made PGlite database in ${folder} is up to date\n`,
  );
}
