/** `dryRun`: the files parsed and validated as `load` reads them, with no database at all. */
import { controlTallyOf } from './input/control/control-check.js';
import { checkFileEncoding } from './input/encoding-sniff.js';
import { fileEncoding, openOrderFile } from './input/order-file.js';
import type { LoadProfile } from './input/profile/load-profile.js';
import { checkRoutingProfiles, routeFiles } from './input/profile/routing.js';
import { UserError } from './errors.js';
import { DEFAULT_LOAD_OPTIONS, type LoadOptions } from './pipeline/load-options.js';
import { emptyStageCounts } from './pipeline/stage-counts.js';
import { dryRunFile, type DryRunResult } from './pipeline/dry-run-file.js';

/**
 * A file of a dry run: its counts, with the profile it was read with (when one); or, when files
 * are routed by name (`profiles`), a file no profile matched (`unmatched`: why; not read, counts 0).
 */
export type DryRunFileResult = DryRunResult & { file: string; profile?: { name: string; sha256: string }; unmatched?: string };

/**
 * --dry-run needs no database at all: the same parse and business rules as `load`, the same
 * counts (see DryRunResult for the two things only the database knows). Every header is
 * checked before any file is read, as `load` does.
 */
export async function dryRunFiles(files: string[], options: Partial<LoadOptions> = {}): Promise<DryRunFileResult[]> {
  const o = { ...DEFAULT_LOAD_OPTIONS, ...stripUndefined(options) };
  // --profiles: each file's profile by its name, as a load routes them (a file two match refuses the run)
  let routes: Map<string, LoadProfile> | null = null;
  const unmatched = new Map<string, string>();
  if (o.profiles !== undefined) {
    if (o.profile !== undefined)
      throw new UserError('profile and profiles together: one profile for every file, or each file’s profile by its name (choose one)');
    checkRoutingProfiles(o.profiles);
    const routing = routeFiles(files, o.profiles);
    routes = routing.routes;
    for (const u of routing.unmatched) unmatched.set(u.file, u.reason);
  }
  const profileOf = (path: string): LoadProfile | undefined => (routes === null ? o.profile : routes.get(path));
  const opened = [];
  try {
    for (const path of files) {
      if (unmatched.has(path)) continue;
      const profile = profileOf(path);
      await checkFileEncoding(path, await fileEncoding(path, profile?.spec.encoding ?? o.encoding), profile?.spec.format);
      opened.push(
        await openOrderFile(path, {
          encoding: o.encoding,
          delimiter: o.delimiter,
          profile,
          onWarning: (message) => o.logger?.warn({ file: path }, message),
          read: { maxInflate: o.maxInflate },
        }),
      );
    }
  } catch (error) {
    for (const f of opened) f.close();
    throw error;
  }
  const results: DryRunFileResult[] = [];
  for (const file of opened) {
    if (file.header.extraColumns.length > 0) {
      o.logger?.warn(
        { file: file.path, columns: file.header.extraColumns },
        `${file.path}: ignoring extra column(s) ${file.header.extraColumns.join(', ')}`,
      );
    }
  }
  const read = new Map<string, DryRunFileResult>();
  for (const file of opened) {
    const profile = profileOf(file.path);
    read.set(file.path, {
      file: file.path,
      ...(profile === undefined ? {} : { profile: { name: profile.name, sha256: profile.sha256 } }),
      ...(await dryRunFile(file, undefined, controlTallyOf(profile?.spec))),
    });
  }
  // in the order given: a file no profile matched where it stands
  const notRead = (file: string, reason: string): DryRunFileResult => ({
    file,
    unmatched: reason,
    counts: { ...emptyStageCounts(), stagedAsError: 0, invalid: 0, toMerge: 0 },
    samples: [],
    stoppedAt: null,
    extraColumns: [],
  });
  for (const path of files) {
    const reason = unmatched.get(path);
    const result = reason === undefined ? read.get(path) : notRead(path, reason);
    if (result !== undefined) results.push(result);
  }
  return results;
}

/** The options given, without the keys whose value is undefined (so that defaults apply to them). */
export function stripUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as Partial<T>;
}
