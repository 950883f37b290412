/**
 * --archive-dir and --failed-dir: where a file goes once its run is over.
 *
 * - Archive: a file whose every line is accounted for (its load ended with exit 0 or 2) is
 *   renamed into the archive as `load<loadId>-<name>`, after the commit that ended its run.
 * - Failed: a file that cannot be read as an order file (header refused, a structural stop, a
 *   truncated gzip) is renamed into the failed folder as `<UTC time>-<name>`, beside
 *   `<that name>.error.txt` saying why (written completely first).
 *
 * Moves are rename(2) only: one atomic step, so a kill -9 at any instant leaves the file either
 * in the inbox or in its folder, never in both and never lost. A file still in the inbox after
 * a kill is found again by the next run (same content: skipped, or resumed) and moved then.
 * rename(2) cannot cross filesystems: a folder on another filesystem than an inbox is refused at
 * start, as is one that cannot be written. A name already taken is never overwritten: a number
 * is added.
 *
 * A folder is made only when asked for and when its parent exists (`inbox/archive` in an inbox
 * that is there); an input folder is never made (src/input/inputs.ts, checkInputsExist). A
 * folder that is an input folder itself is refused: each run would read its own archive again
 * (and the `.error.txt` notes as order files: 1 file, then 2, 4, 8). A subdirectory of the inbox
 * is fine: a listing never enters subdirectories.
 *
 * A file's marker (`--ready-suffix`) moves with it, as `<its new name><suffix>`, and first: a
 * kill between the two leaves a file without its marker (not read until a new marker comes),
 * never a marker without its file (which would make tomorrow's file of that name look finished
 * while it is still being written).
 */
import { randomBytes } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  openSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { escapeControl } from '../cli/escape.js';
import { UserError } from '../errors.js';
import { sleep } from '../sleep.js';

export interface FileFolders {
  archiveDir?: string | undefined;
  failedDir?: string | undefined;
}

function probeWritable(dir: string, what: string): void {
  const probe = join(dir, `.order-loader-probe-${process.pid}-${randomBytes(6).toString('hex')}`);
  try {
    writeFileSync(probe, '', { flag: 'wx', mode: 0o600 });
    unlinkSync(probe);
  } catch (error) {
    throw new UserError(`${what} ${dir} is not writable (${(error as NodeJS.ErrnoException).code ?? 'error'}): no file was read or moved`, {
      cause: error,
    });
  }
}

function deviceOf(dir: string): number {
  return statSync(dir).dev;
}

/**
 * Before anything is read: each folder exists (made when missing, if its parent exists), is a
 * directory we can write, is not an input folder, and is on the same filesystem as every inbox
 * folder, which must be writable too (a file is moved out of it).
 */
export function checkFileFolders(folders: FileFolders, inboxDirs: string[]): void {
  const targets: Array<[string, string]> = [];
  if (folders.archiveDir !== undefined) targets.push(['--archive-dir', folders.archiveDir]);
  if (folders.failedDir !== undefined) targets.push(['--failed-dir', folders.failedDir]);
  if (targets.length === 0) return;
  for (const [option, dir] of targets) {
    try {
      mkdirSync(dir);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT')
        throw new UserError(`${option} ${dir}: its parent folder ${dirname(resolve(dir))} does not exist (only the last folder is made)`, {
          cause: error,
        });
      // there already: fine when it is a folder
      if (code !== 'EEXIST' || !statSync(dir).isDirectory())
        throw new UserError(`${option} ${dir}: cannot create it (${code ?? 'error'})`, { cause: error });
    }
    if (!statSync(dir).isDirectory()) throw new UserError(`${option} ${dir}: not a directory`);
  }
  const inboxes = [...new Set(inboxDirs.map((d) => resolve(d)))];
  for (const inbox of inboxes) {
    for (const [option, dir] of targets) {
      if (realpathSync(dir) === realpathSync(inbox))
        throw new UserError(
          `${option} ${dir} is the folder the files are read from: each run would read its own moved files again (use a subfolder, such as ${join(dir, option === '--archive-dir' ? 'archive' : 'failed')})`,
        );
    }
  }
  for (const [option, dir] of targets) probeWritable(dir, option);
  for (const inbox of inboxes) {
    probeWritable(inbox, 'the folder of the input files');
    for (const [option, dir] of targets) {
      if (deviceOf(dir) !== deviceOf(inbox))
        throw new UserError(
          `${option} ${dir} is on another filesystem than ${inbox}: files are moved with one rename, which cannot cross filesystems (choose a folder on the same filesystem)`,
        );
    }
  }
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}

/** fsync a folder, so that a rename in it survives a power loss (a kill needs nothing). */
function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The first free name of `prefix-<name>`, `prefix-2-<name>`, … in `dir` (with `<it>.error.txt` and each of `alsoFree` after it free too). */
function freeName(dir: string, prefix: string, name: string, alsoFree: string[]): string {
  for (let n = 1; ; n++) {
    const candidate = join(dir, n === 1 ? `${prefix}-${name}` : `${prefix}-${n}-${name}`);
    if (!exists(candidate) && ['.error.txt', ...alsoFree].every((suffix) => !exists(`${candidate}${suffix}`))) return candidate;
  }
}

function rename(path: string, target: string): void {
  renameSync(path, target);
  syncDir(dirname(target));
  syncDir(dirname(path));
}

/** A file's marker file (`--ready-suffix`): its path and the suffix it adds to the file's name. */
export interface Marker {
  path: string;
  suffix: string;
}

/** The marker's own move, before its file's (see the module comment). */
function moveMarker(marker: Marker | undefined, target: string): void {
  if (marker !== undefined && exists(marker.path)) rename(marker.path, `${target}${marker.suffix}`);
}

/** Move a finished file into the archive (its marker first); returns its new path. */
export function archiveFile(path: string, archiveDir: string, loadId: number, marker?: Marker): string {
  const target = freeName(archiveDir, `load${loadId}`, basename(path), marker === undefined ? [] : [marker.suffix]);
  moveMarker(marker, target);
  rename(path, target);
  return target;
}

/** The time of a move as part of a file name: 20260101T023000Z. */
function stampNow(): string {
  return new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
}

/** Move a zero-byte file (a day without orders) into the archive as `empty<UTC time>-<name>`; returns its new path. */
export function archiveEmptyFile(path: string, archiveDir: string, marker?: Marker): string {
  const target = freeName(archiveDir, `empty${stampNow()}`, basename(path), marker === undefined ? [] : [marker.suffix]);
  moveMarker(marker, target);
  rename(path, target);
  return target;
}

/** Move an unreadable file into the failed folder (its marker first), its reason beside it; returns its new path. */
export function failFile(path: string, failedDir: string, reason: string, loadId: number | null, marker?: Marker): string {
  const target = freeName(failedDir, stampNow(), basename(path), [...(marker === undefined ? [] : [marker.suffix])]);
  const sidecar = `${target}.error.txt`;
  const temp = join(failedDir, `.${basename(sidecar)}.${process.pid}.tmp`);
  // a file name (or a reason quoting it) may hold a newline: escaped, so that it cannot add a line to the note
  const lines = [
    `file: ${escapeControl(path)}`,
    `moved: ${new Date().toISOString()}`,
    ...(loadId === null ? [] : [`load: ${loadId}`]),
    `reason: ${escapeControl(reason)}`,
  ];
  try {
    writeFileSync(temp, `${lines.join('\n')}\n`, { mode: 0o600 });
    const fd = openSync(temp, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    // a note that could not be written whole (ENOSPC): not left behind as a hidden file
    rmSync(temp, { force: true });
    throw error;
  }
  // the file first, then its note: a kill between the two leaves a file without a note (its
  // reason is in the log), never a note without its file (and a second note on the next run)
  try {
    moveMarker(marker, target);
    rename(path, target);
  } catch (error) {
    rmSync(temp, { force: true });
    throw error;
  }
  renameSync(temp, sidecar);
  return target;
}

/**
 * For the kill -9 survival test only: ORDER_LOADER_TEST_HOLD_BEFORE_MOVE_MS holds the run for
 * that long between the commit that ended it and the first move.
 */
export async function holdBeforeMoves(logger: Logger): Promise<void> {
  const ms = Number(process.env.ORDER_LOADER_TEST_HOLD_BEFORE_MOVE_MS ?? '0');
  if (!Number.isFinite(ms) || ms <= 0) return;
  logger.info({ ms }, 'holding before the moves (ORDER_LOADER_TEST_HOLD_BEFORE_MOVE_MS)');
  await sleep(ms);
}
