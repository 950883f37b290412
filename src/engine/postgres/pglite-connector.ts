import { existsSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite, type PGliteInterface } from '@electric-sql/pglite';
import { acquireFolderLock, restrictToOwner, type FolderLockOptions } from '../folder-lock.js';
import type { PgConnector, PgLease, PgSession } from './session.js';
import { pgliteFsBundle } from './pglite-assets.js';
import { spaceGuard, type SpaceGuard } from './pglite-space.js';
import { readReadyMade, readyMadeFolder, writeReadyMade } from './pglite-ready.js';

export interface PgliteOpenOptions {
  /**
   * The folder of the ready-made database a new database is made from (default: the package's
   * dist/pglite-ready, pglite-ready.ts); null: always run PGlite's initdb.
   */
  readyMade?: string | null | undefined;
  /** Where the connector says how a new database was made (the logger's debug). */
  debug?: ((fields: Record<string, unknown>, message: string) => void) | undefined;
}

/**
 * Embedded PostgreSQL (PGlite): one connection in this process. Leases are handed out one at
 * a time (a queue), so each transaction has the connection to itself.
 *
 * A data folder belongs to one process: it is locked before PGlite opens it and unlocked only
 * after PGlite closed it. It is the owner's alone (0700, files 0600): PGlite creates most files
 * 0666 whatever the umask, so permissions are taken off after opening and after closing (the
 * folder's own 0700 keeps everyone else out of what is created in between).
 *
 * A new database (in memory, or a folder without PG_VERSION) is made from the ready-made one
 * (pglite-ready.ts) when it is usable, else by PGlite's initdb; `options.debug` is told which.
 */
export async function createPgliteConnector(
  dataDir: string | null,
  lock?: FolderLockOptions,
  options: PgliteOpenOptions = {},
): Promise<PgConnector> {
  const readyMade = options.readyMade === undefined ? readyMadeFolder() : options.readyMade;
  const debug = options.debug ?? (() => undefined);
  if (dataDir === null) {
    const ready = readyMadeFor('a new in-memory database', readyMade, debug);
    const db = await PGlite.create({
      parsers: PGLITE_PARSERS,
      startParams: PGLITE_START_PARAMS,
      fsBundle: await pgliteFsBundle(),
      ...(ready === null ? {} : { loadDataDir: new Blob([ready.tar]) }),
    });
    if (ready !== null) debug({ readyMade }, 'new in-memory database loaded from the ready-made database');
    return pgliteConnectorFor(db);
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  restrictToOwner(dataDir, false);
  const folderLock = await acquireFolderLock(dataDir, lock ?? { command: 'order-loader', timeoutMs: 0 });
  let db: PGliteInterface;
  try {
    removeEmptyLockFile(dataDir);
    // under the lock: one process writes a new folder
    if (!existsSync(join(dataDir, 'PG_VERSION'))) {
      const ready = readyMadeFor(`the new database folder ${dataDir}`, readyMade, debug);
      if (ready !== null) {
        writeReadyMade(dataDir, ready.entries);
        debug({ dataDir, readyMade }, 'new database folder written from the ready-made database');
      }
    }
    db = await PGlite.create({ dataDir, parsers: PGLITE_PARSERS, startParams: PGLITE_START_PARAMS, fsBundle: await pgliteFsBundle() });
  } catch (error) {
    folderLock.release();
    throw error;
  }
  try {
    restrictToOwner(dataDir);
  } catch (error) {
    await db.close().catch(() => undefined);
    folderLock.release();
    throw error;
  }
  const connector = pgliteConnectorFor(db, PGLITE_CHECKPOINT_WAL_BYTES, spaceGuard(dataDir));
  return {
    ...connector,
    async end() {
      try {
        await connector.end();
        restrictToOwner(dataDir);
      } finally {
        folderLock.release();
      }
    },
  };
}

/**
 * A process killed while PGlite was starting can leave `postmaster.pid` created but not yet
 * written. PostgreSQL refuses to start on an empty lock file ("lock file ... is empty"), so
 * PGlite.create failed ("PGlite failed to initialize properly") for every later command, until
 * someone removed the file by hand (seen: kill -9 of `load` 0.4-1 s after its start, 1 folder of
 * 5 killed 10 times each). Called under the folder lock: no process of ours has the folder open,
 * and an empty file names no process. A lock file with content is PGlite's to judge, as before.
 */
function removeEmptyLockFile(dataDir: string): void {
  const file = join(dataDir, 'postmaster.pid');
  try {
    const stat = statSync(file);
    if (stat.isFile() && stat.size === 0) unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}

/** The ready-made database when it is usable; else null, and `debug` says why initdb runs. */
function readyMadeFor(
  what: string,
  folder: string | null,
  debug: (fields: Record<string, unknown>, message: string) => void,
): Extract<ReturnType<typeof readReadyMade>, { usable: true }> | null {
  if (folder === null) {
    debug({}, `${what}: PGlite runs initdb (no ready-made database asked for)`);
    return null;
  }
  const ready = readReadyMade(folder);
  if (ready.usable) return ready;
  debug({ reason: ready.reason }, `${what}: no usable ready-made database, PGlite runs initdb`);
  return null;
}

/**
 * PGlite's own start parameters, plus (bench/RESULTS.md, run 10, 100,000 rows):
 * - max_wal_size 64MB, min_wal_size 32MB: with PostgreSQL's 1GB, a load kept up to 1 GB of WAL
 *   segments in the data folder (100k rows: pg_wal 129 → 65 MB; a 1M-row folder was 1.6 GB);
 *   PGlite runs with fsync off, so the more frequent checkpoints cost little;
 * - shared_buffers 16MB (PGlite: 128MB): the buffers live in PGlite's WebAssembly memory, which
 *   never shrinks, and every open zeroes them (fresh pages): at 64MB an open cost about 0.2 s of
 *   CPU more than at 16MB (0.42 against 0.22 s). A 1M-row load into a folder took the same time
 *   within noise (16MB: 67.7 and 69.3 s, 64MB: 65.0 and 68.2 s, alternating) with a peak RSS of
 *   367–378 MB instead of 396–411 MB (bench/RESULTS.md, run 12);
 * - wal_buffers 16MB (PGlite: 512kB, 1/32 of shared_buffers): single-user mode has no WAL writer,
 *   so once the 512kB ring is full every new WAL page first writes out the oldest one: a
 *   300,000-row load made 39,937 writes of about 8 kB each through PGlite's file system (one
 *   JavaScript call and one syscall each). With a ring larger than a transaction's WAL (about
 *   2 MB per staging batch or chunk), the commit writes it in a few large writes: 573 writes for
 *   the same load. What is durable does not change: a commit still writes its WAL before it
 *   returns (synchronous_commit stays on), and a data page still waits for its WAL;
 * - wal_init_zero off (PostgreSQL: on): a new WAL segment is made by writing its last byte
 *   instead of 16 MB of zeros (a 300,000-row load wrote 734 MB to pg_wal for 436 MB of WAL;
 *   414 MB after). Recovery reads a hole as zeros, as it read the zeros; the setting exists for
 *   copy-on-write file systems and for space guarantees under fsync, which PGlite turns off.
 * Both together, 1,000,000 rows into a folder, 3 alternating pairs: 5–13 % less CPU in each
 * (50.0 → 47.1 s, 57.0 → 49.4 s, 59.5 → 56.3 s; bench/RESULTS.md, run 19); peak RSS 334–372 MB.
 * Not changed, measured or checked in run 19: full_page_writes (a kill -9 can tear a page:
 * Linux stops a buffered write between two 4 kB pages when the process gets SIGKILL, and only the
 * full page images repair that), wal_level minimal (the same WAL bytes for a load).
 */
export const PGLITE_START_PARAMS = [
  ...PGlite.defaultStartParams,
  '-c',
  'max_wal_size=64MB',
  '-c',
  'min_wal_size=32MB',
  '-c',
  'shared_buffers=16MB',
  '-c',
  'wal_buffers=16MB',
  '-c',
  'wal_init_zero=off',
];

/** bigint → number (our ids stay far below 2^53), date → 'YYYY-MM-DD' text; numeric stays text. */
export const PGLITE_PARSERS = { 20: (value: string) => Number(value), 1082: (value: string) => value };

/**
 * WAL written since the last checkpoint after which the next lease first runs CHECKPOINT.
 * PGlite runs PostgreSQL in single-user mode, where nothing checkpoints on its own (the
 * checkpointer is a server process; max_wal_size only triggers it under a postmaster): a 1M-row
 * load grew pg_wal past 700 MB while staging, and a crash would replay all of it.
 */
export const PGLITE_CHECKPOINT_WAL_BYTES = 128 * 1024 * 1024;

/**
 * One turn of the event loop before each statement. PGlite runs a statement in this thread and
 * its promises resolve as microtasks: a run of statements (a processing phase of a million rows)
 * never let libuv deliver a signal, so SIGTERM/SIGINT waited for the whole phase (a 300,000-row
 * load ran on for 28 s after SIGTERM and ended as if never asked to stop). A server connection
 * waits on its socket and turns the loop anyway. Costs microseconds per statement.
 */
export function turnOfEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * A connector over an open PGlite instance (created with PGLITE_PARSERS); closing it closes the
 * instance. With `space`, each lease first checks the free space of the folder (pglite-space.ts).
 */
export function pgliteConnectorFor(db: PGliteInterface, checkpointWalBytes = PGLITE_CHECKPOINT_WAL_BYTES, space?: SpaceGuard): PgConnector {
  const session: PgSession = {
    // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- PgSession's signature: the caller names the row type
    async query<R>(text: string, params?: readonly unknown[]) {
      await turnOfEventLoop();
      const result = await db.query<R>(text, params as unknown[] | undefined);
      return { rows: result.rows, affectedRows: result.affectedRows ?? 0 };
    },
    async exec(text: string): Promise<void> {
      await turnOfEventLoop();
      await db.exec(text);
    },
    // PGlite's COPY reads its input from the virtual file /dev/blob, given as a query option
    async copyFrom(copyStatement: string, data: string): Promise<number> {
      await turnOfEventLoop();
      const result = await db.query(copyStatement.replace(/\bFROM STDIN\s*$/, "FROM '/dev/blob'"), [], { blob: new Blob([data]) });
      return result.affectedRows ?? 0;
    },
  };
  let queue: Promise<void> = Promise.resolve();
  // Between two leases no transaction is open: the place to checkpoint. The WAL position is read
  // every few leases (a query of a few microseconds in-process), CHECKPOINT run when needed.
  let leases = 0;
  let checkpointedAt: number | null = null;
  const checkpointIfDue = async (): Promise<void> => {
    if (++leases % 4 !== 0) return;
    const { rows } = await db.query<{ lsn: number }>("SELECT pg_wal_lsn_diff(pg_current_wal_insert_lsn(), '0/0')::float8 AS lsn");
    const lsn = rows[0]?.lsn ?? 0;
    checkpointedAt ??= lsn;
    if (lsn - checkpointedAt < checkpointWalBytes) return;
    await db.exec('CHECKPOINT');
    checkpointedAt = lsn;
  };
  return {
    kind: 'pglite',
    concurrent: false,
    acquire(): Promise<PgLease> {
      let release!: () => void;
      const previous = queue;
      queue = new Promise<void>((resolve) => {
        release = resolve;
      });
      const ready = async (): Promise<void> => {
        await checkpointIfDue();
        space?.check();
      };
      return previous.then(ready).then(
        () => ({ session, release: () => release() }),
        (error: unknown) => {
          release(); // the next lease may try again
          throw error;
        },
      );
    },
    async setSearchPath(schema: string | null) {
      await db.exec(schema === null ? 'RESET search_path' : `SET search_path TO ${schema}`);
    },
    async end() {
      await queue;
      await db.close();
    },
  };
}
