/**
 * Inbox routing (`--profiles DIR`): an inbox holding several partners' files, each
 * read with the load profile whose `match:` takes its name.
 *
 * - The folder's profiles are every `*.yaml`, `*.yml` and `*.json` in it (not hidden files, not
 *   subfolders), read in file-name order (by code point) and each checked in full before any
 *   order file is opened or the database touched: a bad one refuses the run in one line naming
 *   its file, the key path and the YAML line (src/input/profile/load-profile.ts).
 * - Each profile of such a folder says which file names it takes (`match:`): one without it is a
 *   configuration error (a profile for "every other file" would hide a new partner's file that
 *   nobody wrote a profile for). Two profiles of one name are one too: reports and metrics tell
 *   files apart by the name.
 * - `match:` is a file-name pattern as the pattern arguments take (src/input/inputs.ts): `*` any
 *   characters, `?` one; matched against the whole file name, case-sensitively, so a gzip file is
 *   taken by `EU_ORDERS_*.csv*` (or `*.csv.gz`), not by `EU_ORDERS_*.csv`.
 * - A file two profiles match is a configuration error said before anything is read (exit 1,
 *   naming both profiles and the file): which one was meant cannot be told from the name. A file
 *   no profile matches is not read (src/pipeline/load.ts: moved to --failed-dir with a note, or
 *   left in the inbox with a warning).
 */
import { readdirSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { UserError } from '../../errors.js';
import { patternRegExp } from '../inputs.js';
import { loadProfileFile, type LoadProfile } from './load-profile.js';

/** The file names of a `--profiles` folder read as profiles. */
const PROFILE_FILE = /\.(?:ya?ml|json)$/;

/** A file of the run that no profile's `match:` takes, and the reason given for it (report, log, failed note). */
export interface UnmatchedFile {
  file: string;
  reason: string;
}

/** Which profile reads which file; the files none takes. */
export interface FileRouting {
  routes: Map<string, LoadProfile>;
  unmatched: UnmatchedFile[];
}

/** How a profile is named in a message: its file when it was read from one. */
function named(profile: LoadProfile): string {
  return profile.source ?? profile.name;
}

/**
 * Read and check every profile of a `--profiles` folder (file-name order), and that they can
 * route: each has `match:`, no two share a name. Refused in one line (UserError, exit 1).
 */
export function loadProfileFolder(dir: string): LoadProfile[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UserError(
      `--profiles ${dir}: ${code === 'ENOENT' ? 'no such folder' : code === 'ENOTDIR' ? 'not a folder' : `cannot list (${code ?? 'error'})`}`,
      { cause: error },
    );
  }
  const files = names
    .filter((name) => !name.startsWith('.') && PROFILE_FILE.test(name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => join(dir, name))
    .filter((path) => {
      try {
        return statSync(path).isFile();
      } catch {
        // a dangling symlink: loadProfileFile would say "no such file" of a file the listing showed
        return true;
      }
    });
  if (files.length === 0) throw new UserError(`--profiles ${dir}: no load profile in it (*.yaml, *.yml or *.json)`);
  const profiles = files.map((path) => loadProfileFile(path));
  checkRoutingProfiles(profiles);
  return profiles;
}

/** Profiles that route files: at least one, each with `match:`, no two of one name (UserError otherwise). */
export function checkRoutingProfiles(profiles: readonly LoadProfile[]): void {
  if (profiles.length === 0) throw new UserError('profiles: no load profile to pick each file’s profile from');
  const byName = new Map<string, LoadProfile>();
  for (const profile of profiles) {
    if (profile.spec.match === undefined)
      throw new UserError(
        `profile ${named(profile)}: match: missing: each profile of --profiles says which file names it reads (such as match: "EU_ORDERS_*.csv*")`,
      );
    const same = byName.get(profile.name);
    if (same !== undefined)
      throw new UserError(
        `profiles ${named(same)} and ${named(profile)} are both named ${profile.name}: reports and metrics tell files apart by a profile's name (give one another name:)`,
      );
    byName.set(profile.name, profile);
  }
}

const compiled = new WeakMap<LoadProfile, RegExp | null>();

/** Whether a profile's `match:` takes a file name. */
export function profileMatches(profile: LoadProfile, fileName: string): boolean {
  let re = compiled.get(profile);
  if (re === undefined) {
    re = profile.spec.match === undefined ? null : patternRegExp(profile.spec.match);
    compiled.set(profile, re);
  }
  return re !== null && re.test(fileName);
}

/** Each profile's pattern, for a message: `eu-erp: EU_ORDERS_*.csv*, legacy-jp: JP_LEGACY_*.csv*` (the first ten). */
function patterns(profiles: readonly LoadProfile[]): string {
  const shown = profiles.slice(0, 10).map((p) => `${p.name}: ${p.spec.match ?? '-'}`);
  return `${shown.join(', ')}${profiles.length > 10 ? `, and ${profiles.length - 10} more` : ''}`;
}

/**
 * Each file's profile, by its name (the part after the last `/`). A file two profiles take
 * refuses the run (UserError: exit 1, before anything is read); a file none takes is listed
 * apart with its reason.
 */
export function routeFiles(paths: readonly string[], profiles: readonly LoadProfile[]): FileRouting {
  const routes = new Map<string, LoadProfile>();
  const unmatched: UnmatchedFile[] = [];
  const doubles: Array<{ path: string; taken: LoadProfile[] }> = [];
  for (const path of paths) {
    const taken = profiles.filter((p) => profileMatches(p, basename(path)));
    const [first, second] = taken;
    if (first === undefined) unmatched.push({ file: path, reason: `no load profile matches its name (${patterns(profiles)})` });
    else if (second === undefined) routes.set(path, first);
    else doubles.push({ path, taken });
  }
  const double = doubles[0];
  if (double !== undefined) {
    const [a, b] = double.taken as [LoadProfile, LoadProfile];
    const more = doubles.length > 1 ? ` (and ${doubles.length - 1} more file(s))` : '';
    throw new UserError(
      `${double.path}: two load profiles match its name, ${named(a)} (match: ${a.spec.match ?? ''}) and ${named(b)} (match: ${b.spec.match ?? ''})${more}: make their match: patterns take different files; nothing was read`,
    );
  }
  return { routes, unmatched };
}
