/**
 * The ready-made database: a PGlite data folder that ran initdb and the PostgreSQL migrations,
 * made by `npm run build` (pglite-ready-build.ts; `npm ci` runs it through `prepare`) into
 * dist/pglite-ready/, as a gzipped tar and a manifest saying what it holds. It holds the
 * database `postgres` only (template0 and template1, which nothing here uses, are left out). A new folder (no
 * PG_VERSION) is written from it instead of running PGlite's initdb, which took 7–9 s and a peak
 * RSS of about 800 MB (it runs a second PGlite instance, then copies its result over); migrations
 * added since it was made are applied by the usual migrate() of the first open.
 *
 * Used only when it was made by the PGlite installed now and every migration it holds is the
 * current file of that number (same content): else, or when it is missing or unreadable, the
 * folder is made by initdb as before (readReadyMade says why; the caller logs it at debug).
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { listMigrations, packageRoot } from '../../sql-files.js';

/** What a ready-made database holds: made by this PGlite, with these migrations applied. */
export interface ReadyMadeManifest {
  /** How it was made (pglite-ready-build.ts): a new recipe makes the build make it again. */
  recipe: number;
  pglite: string;
  migrations: { name: string; sha256: string }[];
}

/** One entry of the tar: a folder or a file, its path relative to the data folder. */
export interface ReadyMadeEntry {
  path: string;
  /** null for a folder */
  data: Uint8Array | null;
}

export type ReadyMade = { usable: true; entries: ReadyMadeEntry[]; tar: Uint8Array } | { usable: false; reason: string };

/** The version of the installed PGlite (its package.json, next to the pglite.data it exports). */
export function pgliteVersion(): string {
  const data = createRequire(import.meta.url).resolve('@electric-sql/pglite/pglite.data');
  const pkg = JSON.parse(readFileSync(join(dirname(data), '..', 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

/** Where the build puts it: dist/pglite-ready/ of the package (also when run from the sources). */
export function readyMadeFolder(): string {
  return join(packageRoot(), 'dist', 'pglite-ready');
}

export function readyMadePaths(folder = readyMadeFolder()): { archive: string; manifest: string } {
  return { archive: join(folder, 'pglite-ready.tar.gz'), manifest: join(folder, 'pglite-ready.json') };
}

/** 2: template0 and template1 dropped (pglite-ready-build.ts). */
export const READY_MADE_RECIPE = 2;

/** What a ready-made database made now would hold: this PGlite, the current migration files. */
export function currentManifest(): ReadyMadeManifest {
  return {
    recipe: READY_MADE_RECIPE,
    pglite: pgliteVersion(),
    migrations: listMigrations('postgres').map((m) => ({ name: m.name, sha256: createHash('sha256').update(m.sql).digest('hex') })),
  };
}

/** Why a ready-made database with this manifest cannot be used now, or null when it can. */
export function manifestMismatch(made: ReadyMadeManifest, now: ReadyMadeManifest): string | null {
  if (made.pglite !== now.pglite) return `made by PGlite ${made.pglite}, this is ${now.pglite}`;
  const current = new Map(now.migrations.map((m) => [m.name, m.sha256]));
  for (const migration of made.migrations) {
    const sha = current.get(migration.name);
    if (sha === undefined) return `it holds migration ${migration.name}, which is no longer in sql/postgres/migrations`;
    if (sha !== migration.sha256) return `migration ${migration.name} changed since it was made`;
  }
  return null;
}

/**
 * Read the ready-made database at `folder` and check that it may be used now. Never throws:
 * anything wrong with it (missing, unreadable, corrupt, made for another PGlite or other
 * migrations) is a reason, and the caller runs initdb instead.
 */
export function readReadyMade(folder = readyMadeFolder()): ReadyMade {
  const paths = readyMadePaths(folder);
  let manifest: ReadyMadeManifest;
  try {
    manifest = JSON.parse(readFileSync(paths.manifest, 'utf8')) as ReadyMadeManifest;
  } catch (error) {
    return { usable: false, reason: `cannot read ${paths.manifest}: ${(error as Error).message}` };
  }
  if (typeof manifest.pglite !== 'string' || !Array.isArray(manifest.migrations))
    return { usable: false, reason: `${paths.manifest} is not a manifest` };
  const mismatch = manifestMismatch(manifest, currentManifest());
  if (mismatch !== null) return { usable: false, reason: `${paths.archive}: ${mismatch}` };
  try {
    const tar = gunzipSync(readFileSync(paths.archive));
    const entries = parseTar(tar);
    if (!entries.some((entry) => entry.path === 'PG_VERSION' && entry.data !== null))
      return { usable: false, reason: `${paths.archive} holds no PG_VERSION` };
    return { usable: true, entries, tar };
  } catch (error) {
    return { usable: false, reason: `cannot read ${paths.archive}: ${(error as Error).message}` };
  }
}

const BLOCK = 512;

function field(header: Uint8Array, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return new TextDecoder().decode(end === -1 ? bytes : bytes.subarray(0, end));
}

function octal(header: Uint8Array, offset: number, length: number): number {
  const text = field(header, offset, length).trim();
  if (!/^[0-7]+$/.test(text)) throw new Error(`bad octal field ${JSON.stringify(text)}`);
  return Number.parseInt(text, 8);
}

/**
 * The entries of a ustar archive (as PGlite's dumpDataDir writes them: folders and regular
 * files, paths starting with `/`). Anything else — another entry type, a path leaving the
 * folder, a bad header checksum, a truncated entry — is an error.
 */
export function parseTar(tar: Uint8Array): ReadyMadeEntry[] {
  const entries: ReadyMadeEntry[] = [];
  let offset = 0;
  for (;;) {
    if (offset + BLOCK > tar.length) throw new Error('truncated tar archive');
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) return entries;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (header[i] ?? 0);
    if (sum !== octal(header, 148, 8)) throw new Error(`bad tar header checksum at byte ${offset}`);
    const prefix = field(header, 345, 155);
    const name = (prefix === '' ? '' : `${prefix}/`) + field(header, 0, 100);
    const path = name.replace(/^\/+/, '').replace(/\/+$/, '');
    if (path === '' || path.split('/').some((part) => part === '' || part === '.' || part === '..'))
      throw new Error(`unexpected path ${JSON.stringify(name)} in tar archive`);
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] ?? 0);
    offset += BLOCK;
    if (type === '5') entries.push({ path, data: null });
    else if (type === '0' || type === '\0') {
      if (offset + size > tar.length) throw new Error(`truncated tar entry ${path}`);
      entries.push({ path, data: tar.subarray(offset, offset + size) });
      offset += Math.ceil(size / BLOCK) * BLOCK;
    } else throw new Error(`unexpected entry type ${JSON.stringify(type)} for ${path} in tar archive`);
  }
}

/**
 * Write the entries into the (locked) data folder: folders 0700, files 0600. PG_VERSION, which
 * tells PGlite that a database is there, is written last: a write stopped halfway (killed, out
 * of space) leaves a folder without it, which the next open writes again. An error writing is
 * the folder's and is thrown.
 */
export function writeReadyMade(dataDir: string, entries: readonly ReadyMadeEntry[]): void {
  let version: ReadyMadeEntry | undefined;
  for (const entry of entries) {
    if (entry.path === 'PG_VERSION') {
      version = entry;
      continue;
    }
    const target = join(dataDir, entry.path);
    if (entry.data === null) mkdirSync(target, { recursive: true, mode: 0o700 });
    else {
      mkdirSync(dirname(target), { recursive: true, mode: 0o700 });
      writeFileSync(target, entry.data, { mode: 0o600 });
    }
  }
  if (version?.data == null) throw new Error('the ready-made database has no PG_VERSION');
  writeFileSync(join(dataDir, 'PG_VERSION'), version.data, { mode: 0o600 });
}
