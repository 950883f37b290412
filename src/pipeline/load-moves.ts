import { existsSync } from 'node:fs';
import type { ListedFile } from '../input/inputs.js';
import type { ControlOutcome } from '../input/control/control-check.js';
import { errorMessage } from '../errors.js';
import { archiveEmptyFile, archiveFile, failFile, holdBeforeMoves, type Marker } from './archive.js';
import { controlReason, heldByControl, moveControlFile } from './load-control.js';
import { isEmptyFile, stillBeingWritten, type SetAside } from './load-checks.js';
import type { FileReport, KeptForSet, LoadOptions, LoadReport } from './load-options.js';
import { keptForSetMessage } from './load-holds.js';

/**
 * After the commit that ended the run: with --failed-dir, the files that cannot be read as order
 * files go there (header refused, or staging stopped at a line), and so do the files no profile
 * matched (--profiles); with --archive-dir, when the
 * run did not stop early, every other file read goes there (unless it changed meanwhile). A file
 * not moved stays in the inbox. A move that fails stops the moves (exit 1).
 */
export async function moveFiles(
  reports: FileReport[],
  aside: SetAside,
  listed: Map<string, ListedFile>,
  aborted: string | null,
  options: LoadOptions,
  /** The run's loads an unfinished set still holds (load-holds.ts, heldBySets): their files stay where they are. */
  heldBySets: ReadonlyMap<number, string[]> = new Map(),
): Promise<{ archived: LoadReport['archived']; failure: string | null; kept: KeptForSet[] }> {
  const { archiveDir, failedDir, logger } = options;
  const archived: LoadReport['archived'] = [];
  const keeps = keepsForSets(heldBySets, logger);
  if (failedDir !== undefined) {
    for (const r of reports) {
      if (r.stoppedAt !== null)
        aside.unreadable.push({ file: r.file, reason: `line ${r.stoppedAt.line}: ${r.stoppedAt.message}`, movedTo: null });
    }
  }
  const controlFailed = failedDir === undefined ? [] : aside.controlRefused;
  const heldFailed =
    failedDir === undefined ? [] : heldByControl(reports).filter((r) => !keeps.kept(r.file, r.loadId, 'moved to --failed-dir'));
  const toArchive =
    archiveDir === undefined || aborted !== null
      ? []
      : reports.filter(
          (r) => r.stoppedAt === null && r.leftInInbox === undefined && r.controlHeld !== true && !keeps.kept(r.file, r.loadId, 'archived'),
        );
  const emptyToArchive = archiveDir === undefined || aborted !== null ? [] : aside.empty;
  const unmatchedToFail = failedDir === undefined ? [] : aside.unmatched;
  if (
    toArchive.length === 0 &&
    emptyToArchive.length === 0 &&
    aside.unreadable.length === 0 &&
    unmatchedToFail.length === 0 &&
    controlFailed.length === 0 &&
    heldFailed.length === 0
  )
    return { archived, failure: null, kept: keeps.files };
  const markerOf = (path: string): Marker | undefined => {
    const marker = listed.get(path)?.marker;
    return marker === undefined || options.readySuffix === undefined ? undefined : { path: marker, suffix: options.readySuffix };
  };
  await holdBeforeMoves(logger);
  const m: Moving = { options, listed, markerOf, current: '' };
  try {
    if (failedDir !== undefined) moveToFailed(m, failedDir, reports, aside, { controlFailed, heldFailed, unmatchedToFail, keeps });
    archiveRead(m, archiveDir, toArchive, archived, aside);
    archiveEmpty(m, archiveDir, emptyToArchive, aside);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? errorMessage(error);
    logger.error({ file: m.current, code }, 'could not move the file');
    return {
      archived,
      failure: `${m.current}: could not be moved (${code}): it stays where it is; the files after it were not moved either`,
      kept: keeps.files,
    };
  }
  return { archived, failure: null, kept: keeps.files };
}

/** The files of the run's loads an unfinished set holds: each is left where it is, said once (log and report), whatever move it escapes. */
interface SetKeeps {
  /** Whether the file (of load `loadId`) stays: said the first time. */
  kept(file: string, loadId: number, move: 'archived' | 'moved to --failed-dir'): boolean;
  /** The files kept so far, each once. */
  files: KeptForSet[];
}

function keepsForSets(heldBySets: ReadonlyMap<number, string[]>, logger: LoadOptions['logger']): SetKeeps {
  const files: KeptForSet[] = [];
  return {
    kept(file, loadId, move) {
      const missing = heldBySets.get(loadId);
      if (missing === undefined) return false;
      if (!files.some((k) => k.file === file)) {
        const reason = keptForSetMessage(file, loadId, missing, move);
        logger.warn({ file, loadId, missing }, reason);
        files.push({ file, loadId, missing, reason });
      }
      return true;
    },
    files,
  };
}

/** What each move needs: the run's options and listing, and the file being moved now (said when a move fails). */
interface Moving {
  options: LoadOptions;
  listed: Map<string, ListedFile>;
  markerOf: (path: string) => Marker | undefined;
  current: string;
}

/** With --failed-dir: the files that cannot be read as order files, those refused or held for their control totals, those no profile matched. */
function moveToFailed(
  m: Moving,
  failedDir: string,
  reports: FileReport[],
  aside: SetAside,
  {
    controlFailed,
    heldFailed,
    unmatchedToFail,
    keeps,
  }: { controlFailed: SetAside['controlRefused']; heldFailed: FileReport[]; unmatchedToFail: SetAside['unmatched']; keeps: SetKeeps },
): void {
  const { options, markerOf } = m;
  const { logger } = options;
  for (const u of aside.unreadable) {
    m.current = u.file;
    const loadId = reports.find((r) => r.file === u.file)?.loadId ?? null;
    if (loadId !== null && keeps.kept(u.file, loadId, 'moved to --failed-dir')) continue;
    u.movedTo = failFile(u.file, failedDir, u.reason, loadId, markerOf(u.file));
    moveControlFile(u.file, u.movedTo, options);
    logger.warn({ file: u.file, movedTo: u.movedTo }, `${u.file}: moved to ${u.movedTo} (cannot be read as an order file: ${u.reason})`);
  }
  // files refused for their control totals (not staged), and files held for them (their rows HELD)
  for (const c of controlFailed) {
    m.current = c.file;
    c.movedTo = failFile(c.file, failedDir, controlReason(c.control, null), null, markerOf(c.file));
    moveControlFile(c.file, c.movedTo, options);
    logger.warn({ file: c.file, movedTo: c.movedTo }, `${c.file}: moved to ${c.movedTo} (${c.control.problems.join('; ')})`);
  }
  for (const r of heldFailed) {
    m.current = r.file;
    const control = r.control as ControlOutcome;
    r.controlMovedTo = failFile(r.file, failedDir, controlReason(control, r.loadId), r.loadId, markerOf(r.file));
    moveControlFile(r.file, r.controlMovedTo, options);
    logger.warn({ file: r.file, movedTo: r.controlMovedTo }, `${r.file}: moved to ${r.controlMovedTo} (${control.problems.join('; ')})`);
  }
  // files no profile's match: takes (--profiles): not read, so never part of a load
  for (const u of unmatchedToFail) {
    m.current = u.file;
    u.movedTo = failFile(u.file, failedDir, u.reason, null, markerOf(u.file));
    logger.warn({ file: u.file, movedTo: u.movedTo }, `${u.file}: moved to ${u.movedTo} (${u.reason})`);
  }
}

/** With --archive-dir: each file read, unless it is gone or changed while it was loaded. */
function archiveRead(
  m: Moving,
  archiveDir: string | undefined,
  toArchive: FileReport[],
  archived: LoadReport['archived'],
  aside: SetAside,
): void {
  const { options, listed, markerOf } = m;
  const { logger } = options;
  for (const r of toArchive) {
    m.current = r.file;
    if (listed.has(r.file) && !existsSync(r.file)) {
      // renamed or taken away after it was read: its rows are in, there is nothing to move
      const reason = `${r.file}: gone before it could be archived (renamed or taken away while it was loaded): its rows are load ${r.loadId}; nothing archived`;
      logger.warn({ file: r.file, loadId: r.loadId }, reason);
      continue;
    }
    const changed = stillBeingWritten(r.file, listed, options);
    if (changed !== null) {
      aside.notRead.push({ file: r.file, reason: `${changed}; it changed while it was loaded: left in the inbox` });
      continue;
    }
    const movedTo = archiveFile(r.file, archiveDir ?? '', r.loadId, markerOf(r.file));
    moveControlFile(r.file, movedTo, options);
    archived.push({ file: r.file, movedTo });
    logger.info({ file: r.file, movedTo, loadId: r.loadId }, `${r.file}: archived as ${movedTo}`);
  }
}

/** With --archive-dir: each empty file, unless it was written to since it was found empty. */
function archiveEmpty(m: Moving, archiveDir: string | undefined, emptyToArchive: SetAside['empty'], aside: SetAside): void {
  const { options, listed, markerOf } = m;
  const { logger } = options;
  for (const empty of emptyToArchive) {
    m.current = empty.file;
    const listing = listed.get(empty.file);
    const changed =
      listing === undefined
        ? isEmptyFile(empty.file)
          ? null
          : `${empty.file}: written to since it was found empty`
        : stillBeingWritten(empty.file, listed, options);
    if (changed !== null) {
      aside.notRead.push({ file: empty.file, reason: `${changed}; left in the inbox` });
      aside.empty = aside.empty.filter((e) => e !== empty);
      continue;
    }
    empty.movedTo = archiveEmptyFile(empty.file, archiveDir ?? '', markerOf(empty.file));
    logger.info({ file: empty.file, movedTo: empty.movedTo }, `${empty.file}: empty, archived as ${empty.movedTo}`);
  }
}
