/**
 * `load`'s checks before anything is written (src/pipeline/load.ts): files routed to their
 * profile by name, files that changed since they were listed or are empty set aside, every
 * header checked.
 */
import { statSync } from 'node:fs';
import { UserError } from '../errors.js';
import { changedSinceListed, type ListedFile } from '../input/inputs.js';
import { checkRoutingProfiles, routeFiles } from '../input/profile/routing.js';
import { controlFileNotReady } from './load-control.js';
import type { LoadOptions, LoadReport } from './load-options.js';
import { openChecked } from './open-checked.js';

/** The files of a run that are not staged: not read this time, not order files (--failed-dir), empty, or no profile's (--profiles). */
export interface SetAside {
  notRead: LoadReport['notRead'];
  unreadable: LoadReport['unreadable'];
  empty: LoadReport['empty'];
  unmatched: NonNullable<LoadReport['unmatched']>;
  controlRefused: NonNullable<LoadReport['controlRefused']>;
}

/** The options a file is read with: the run's, with the file's own profile when the run routes files by name (--profiles). */
export type OptionsOf = (path: string) => LoadOptions;

/**
 * Inbox routing (`profiles`, src/input/profile/routing.ts): each file's profile by its name, the
 * files no profile takes set aside (said here: moved to --failed-dir, or left where they are). A
 * file two profiles take refuses the run before anything is read. Without `profiles`, every file
 * is read with the run's options.
 */
export function routeByName(paths: string[], options: LoadOptions, aside: SetAside): { paths: string[]; optionsOf: OptionsOf } {
  const profiles = options.profiles;
  if (profiles === undefined) return { paths, optionsOf: () => options };
  if (options.profile !== undefined)
    throw new UserError('profile and profiles together: one profile for every file, or each file’s profile by its name (choose one)');
  checkRoutingProfiles(profiles);
  const { routes, unmatched } = routeFiles(paths, profiles);
  for (const u of unmatched) {
    // with --failed-dir, the move says it (moveFiles)
    if (options.failedDir === undefined) options.logger.warn({ file: u.file }, `${u.file}: ${u.reason}: not read, left where it is`);
    aside.unmatched.push({ ...u, movedTo: null });
  }
  const perFile = new Map<string, LoadOptions>();
  for (const [path, profile] of routes) perFile.set(path, { ...options, profile });
  return { paths: paths.filter((p) => routes.has(p)), optionsOf: (path) => perFile.get(path) ?? options };
}

/** Whether a file has no byte at all (a day without orders); a file that cannot be read is left to openOrderFile to say. */
export function isEmptyFile(path: string): boolean {
  try {
    return statSync(path).size === 0;
  } catch {
    return false;
  }
}

/** Why a listed file is not to be read now (it changed since it was listed), logged; null to read it. */
export function stillBeingWritten(path: string, listed: Map<string, ListedFile>, options: LoadOptions): string | null {
  const listing = listed.get(path);
  const reason = listing === undefined ? null : changedSinceListed(listing);
  if (reason !== null) options.logger.warn({ file: path }, reason);
  return reason;
}

/**
 * Check every file's header before anything is written, one file open at a time (an inbox
 * may hold more files than the process may open): each is opened again just before it is
 * staged. A file that changed since it was listed is set aside; with --failed-dir, so is a file
 * whose header is refused (the others are loaded), else that refuses the run.
 */
export async function checkFiles(
  paths: string[],
  optionsOf: OptionsOf,
  listed: Map<string, ListedFile>,
  aside: SetAside,
): Promise<string[]> {
  const checked: string[] = [];
  for (const path of paths) {
    const options = optionsOf(path);
    const changed = stillBeingWritten(path, listed, options);
    if (changed !== null) {
      aside.notRead.push({ file: path, reason: changed });
      continue;
    }
    const control = controlFileNotReady(path, options, Date.now(), listed.get(path)?.named === true);
    if (control !== null) {
      aside.notRead.push(control);
      continue;
    }
    if (isEmptyFile(path)) {
      // an empty load: nothing to stage, said, archived with the others
      options.logger.info({ file: path }, `${path}: empty (0 bytes): nothing to load`);
      aside.empty.push({ file: path, movedTo: null });
      continue;
    }
    const file = await openChecked(path, options, aside);
    if (file === null) continue;
    file.close();
    if (file.header.extraColumns.length > 0) {
      options.logger.warn(
        { file: file.path, columns: file.header.extraColumns },
        `${file.path}: ignoring extra column(s) ${file.header.extraColumns.join(', ')}`,
      );
    }
    checked.push(path);
  }
  return checked;
}
