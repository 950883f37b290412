/**
 * A `load`/`stage` and its files' control totals (a profile's `control:`,
 * src/input/control/control-check.ts): the control files are no order files of the run, a file
 * whose control file is still being written waits for the next run, a file whose control values
 * are missing or unreadable is refused before staging, and a control file moves with its file.
 */
import { existsSync, renameSync, statSync } from 'node:fs';
import { basename } from 'node:path';
import { controlFileName, controlSummary, isControlFileName, type ControlOutcome } from '../input/control/control-check.js';
import type { FileReport, LoadOptions } from './load-options.js';

/** The control file name patterns of the run's profiles (`control: file:`). */
export function controlPatterns(options: Pick<LoadOptions, 'profile' | 'profiles'>): string[] {
  const profiles = [...(options.profile === undefined ? [] : [options.profile]), ...(options.profiles ?? [])];
  return [...new Set(profiles.flatMap((p) => (p.spec.control?.file === undefined ? [] : [p.spec.control.file])))];
}

/** The run's files without the control files of its profiles (read with their data file, never as order files). */
export function withoutControlFiles(paths: string[], options: Pick<LoadOptions, 'profile' | 'profiles'>): string[] {
  const patterns = controlPatterns(options);
  if (patterns.length === 0) return paths;
  return paths.filter((p) => !patterns.some((pattern) => isControlFileName(basename(p), pattern)));
}

/** Whether a listed path is a control file of the run's profiles: never itself "left for the next run" (it waits with its data file). */
export function isControlFile(path: string, options: Pick<LoadOptions, 'profile' | 'profiles'>): boolean {
  return withoutControlFiles([path], options).length === 0;
}

/**
 * Why a file is left for the next run because its control file is still being written (modified
 * within the quiet period, `settleMs`), or null. A control file that is not there is no reason
 * to wait: the check refuses the file (the partner writes it first, or the marker of
 * --ready-suffix comes last). A data file whose marker is there needs no quiet period: the partner
 * writes the marker once both files are complete (docs/nightly.md).
 */
export function controlFileNotReady(
  path: string,
  options: LoadOptions,
  now: number = Date.now(),
  named = false,
): { file: string; reason: string; named?: { quietEndsAt: number } } | null {
  const pattern = options.profile?.spec.control?.file;
  const quiet = options.settleMs ?? 0;
  if (pattern === undefined || quiet <= 0) return null;
  if (options.readySuffix !== undefined && existsSync(`${path}${options.readySuffix}`)) return null;
  const control = controlFileName(path, pattern);
  let mtimeMs: number;
  try {
    mtimeMs = statSync(control).mtimeMs;
  } catch {
    return null;
  }
  const age = now - mtimeMs;
  if (age >= quiet) return null;
  const modified = `its control file ${basename(control)} was modified ${Math.max(0, Math.round(age / 1000))} s ago (quiet period ${quiet / 1000} s): still being written?`;
  // a file the user named is not left quietly for a next run a user at a terminal never starts: exit 2
  if (named)
    return {
      file: path,
      reason: `${path}: not read: ${modified} run again once it is complete (--settle 0 reads it as it is)`,
      named: { quietEndsAt: mtimeMs + quiet },
    };
  return { file: path, reason: `${path}: ${modified} left for the next run` };
}

/** What a file refused or held for its control totals says: the figures, and what lets it through. */
export function controlReason(control: ControlOutcome, loadId: number | null): string {
  const next =
    loadId === null
      ? 'refused before staging: nothing of it was staged'
      : `its rows stay HELD in load ${loadId}: nothing of it is merged until \`order-loader accept ${loadId} --reason "…"\``;
  return `${controlSummary(control)}; ${next}`;
}

/** Whether the check stops this file (on_mismatch: hold): refused when its control values are missing or unreadable. */
export function refusedByControl(control: ControlOutcome | undefined): control is ControlOutcome {
  return control !== undefined && control.status === 'refused' && control.onMismatch === 'hold';
}

/** The files whose rows the check held: no archive for them, the failed folder with --failed-dir. */
export function heldByControl(reports: FileReport[]): FileReport[] {
  return reports.filter((r) => r.controlHeld === true);
}

/** Its control file moves with a moved file, to the name the pattern gives its new name (after it: a kill between leaves a control file that is no order file). */
export function moveControlFile(path: string, movedTo: string, options: Pick<LoadOptions, 'profile' | 'profiles'>): void {
  for (const pattern of controlPatterns(options)) {
    const control = controlFileName(path, pattern);
    if (existsSync(control)) renameSync(control, controlFileName(movedTo, pattern));
  }
}
