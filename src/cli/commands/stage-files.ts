/** load and stage: the files are checked before the database is opened, then staged (and, for load, processed). */
import { isControlFile, withoutControlFiles } from '../../pipeline/load-control.js';
import { realpathSync } from 'node:fs';
import { UserError } from '../../errors.js';
import { lockInboxes } from '../../input/inbox-lock.js';
import { checkInputsExist, expandInputs, inputFolder, type ListingRules } from '../../input/inputs.js';
import { checkFileEncoding } from '../../input/encoding-sniff.js';
import { fileEncoding, openOrderFile } from '../../input/order-file.js';
import { loadProfileFile, type LoadProfile } from '../../input/profile/load-profile.js';
import { loadProfileFolder, routeFiles } from '../../input/profile/routing.js';
import { dryRunFiles } from '../../loader-dry-run.js';
import type { LoadReport } from '../../pipeline/load.js';
import { checkFileFolders } from '../../pipeline/archive.js';
import type { ErrorCodeCount } from '../../pipeline/error-codes.js';
import { dryRunExitCode, EXIT_FAILED, EXIT_OK, EXIT_ROWS_REJECTED } from '../../pipeline/outcome.js';
import {
  commandTiming,
  print,
  printReport,
  progressOf,
  readStateForMetrics,
  runOptions,
  sayAborted,
  withLoader,
  type CommandContext,
} from '../command.js';
import { escapeControl } from '../escape.js';
import { defaultLockTimeoutMs } from '../options.js';
import { renderDryRun, renderLoadReport, renderNothingToLoad } from '../render.js';
import { renderLoadMarkdown, reportFormat } from '../render-markdown.js';
import { phaseRates } from '../phase-work.js';
import { waitForNamedFiles } from '../../input/named-wait.js';

/**
 * The inbox folders of the arguments (src/input/inbox-lock.ts): those of a directory or a
 * pattern, and, when files are moved, those of the files named too.
 */
function inboxDirs(args: string[], movesFiles: boolean): string[] {
  return args.flatMap((arg) => {
    const { kind, dir } = inputFolder(arg);
    return kind !== 'file' || movesFiles ? [dir] : [];
  });
}

/**
 * A --profiles folder that is an input folder (a directory or a pattern's) would have its
 * profiles read as order files, and moved to --failed-dir as files no profile matches: refused.
 */
function checkProfilesFolder(dir: string, args: string[]): void {
  const real = (path: string): string | null => {
    try {
      return realpathSync(path);
    } catch {
      // not there: said by the listing (or by loadProfileFolder)
      return null;
    }
  };
  const profiles = real(dir);
  for (const arg of args) {
    const input = inputFolder(arg);
    if (input.kind !== 'file' && profiles !== null && real(input.dir) === profiles)
      throw new UserError(
        `--profiles ${dir} is a folder the files are read from: its profiles would be read as order files (keep them in a folder of their own)`,
      );
  }
}

/** The profiles of the command line: --profile's, or --profiles' (each file's by its name); never both. */
function profilesOf(
  command: 'load' | 'stage',
  options: CommandContext['options'],
  args: string[],
): { profile: LoadProfile | undefined; profiles: LoadProfile[] | undefined } {
  if (options.profile !== undefined && options.profiles !== undefined)
    throw new UserError(
      `${command}: --profile and --profiles together are refused: --profile reads every file with one profile, --profiles picks each file's profile by its name`,
    );
  if (options.profiles === undefined)
    return { profile: options.profile === undefined ? undefined : loadProfileFile(options.profile), profiles: undefined };
  checkProfilesFolder(options.profiles, args);
  // every profile of the folder checked before any file is opened or the database touched
  return { profile: undefined, profiles: loadProfileFolder(options.profiles) };
}

export async function stageFiles(ctx: CommandContext, command: 'load' | 'stage'): Promise<number> {
  const { options } = ctx;
  const format = reportFormat(command, options.format);
  // checked before any file is opened or the database touched
  const { profile, profiles } = profilesOf(command, options, ctx.files);
  if (options['dry-run']) {
    // --dry-run writes nothing, moves nothing and needs no database
    const { files } = expandInputs(ctx.files);
    if (files.length === 0) return nothingToLoad(ctx, command);
    const results = await dryRunFiles(
      files.map((f) => f.path),
      {
        encoding: options.encoding,
        delimiter: options.delimiter,
        profile,
        profiles,
        batchSize: options['batch-size'],
        maxInflate: options['max-inflate'],
        logger: ctx.logger,
      },
    );
    print(ctx.session, options.json ? JSON.stringify({ dryRun: true, files: results }) : renderDryRun(results));
    return dryRunExitCode(results, command);
  }
  const folders = { archiveDir: options['archive-dir'], failedDir: options['failed-dir'] };
  const movesFiles = folders.archiveDir !== undefined || folders.failedDir !== undefined;
  // a missing input (an inbox not mounted, a typing error) is a failure, and no folder is made
  if (ctx.files.length > 0) checkInputsExist(ctx.files);
  const inboxes = inboxDirs(ctx.files, movesFiles);
  const rules: ListingRules = { settleMs: options.settle, readySuffix: options['ready-suffix'] };
  // a folder that cannot take the files is refused before anything is read or moved
  checkFileFolders(folders, inboxes);
  // one job at a time per inbox: held from before the listing until the files are moved
  const lock = await lockInboxes(inboxes, {
    command,
    timeoutMs: options['lock-timeout'] ?? defaultLockTimeoutMs(command),
    signal: ctx.signal,
    onWait: (message, holder) => ctx.logger.warn({ holder }, message),
    onUnlockable: (message) => ctx.logger.warn(message),
  });
  let code = EXIT_FAILED;
  try {
    code = await listAndStage(ctx, command, format, folders, rules, { profile, profiles });
    return code;
  } finally {
    // --metrics-file before the lock goes: a run queued behind this one writes its own after
    // it, so the file ends with the latest run and the latest state of the database
    ctx.session.writeMetrics?.(code);
    lock.release();
  }
}

type Listing = { notReady: LoadReport['notRead']; ignored: LoadReport['ignored'] };

async function listAndStage(
  ctx: CommandContext,
  command: 'load' | 'stage',
  format: 'text' | 'markdown',
  folders: { archiveDir: string | undefined; failedDir: string | undefined },
  rules: ListingRules,
  { profile, profiles }: { profile: LoadProfile | undefined; profiles: LoadProfile[] | undefined },
): Promise<number> {
  const { options } = ctx;
  const {
    files,
    notReady: listedNotReady,
    ignored,
  } = await waitForNamedFiles(ctx.files, rules, expandInputs(ctx.files, rules), {
    signal: ctx.signal,
    onWait: (message, waited) => ctx.logger.warn({ files: waited }, message),
  });
  // a control file waits with its data file: its own marker or age says nothing of it
  const notReady = listedNotReady.filter((n) => !isControlFile(n.file, { profile, profiles }));
  // said once, here: the run reports them without saying them again
  for (const n of notReady) ctx.logger.warn({ file: n.file }, n.reason);
  for (const i of ignored) ctx.logger.warn({ file: i.file }, i.reason);
  const listing: Listing = { notReady, ignored };
  // `stage` with nothing to stage needs no database; `load` still processes the rows of earlier loads that are due
  if (files.length === 0 && command === 'stage') return nothingToLoad(ctx, command, listing);
  // a profile's control files (control: file:) are read with their file, never as order files
  const paths = withoutControlFiles(
    files.map((f) => f.path),
    { profile, profiles },
  );
  const ordered = new Set(paths);
  // --profiles: each file's profile by its name; a file two profiles match refuses the run here,
  // before the database is opened (a file none matches is set aside by the run: moved or left)
  const routes = profiles === undefined ? null : routeFiles(paths, profiles).routes;
  // Every header (and the encoding of the file's start) is checked before the database is opened: creating and migrating a fresh
  // embedded database takes seconds, and a file missing a column would be refused anyway.
  // With --failed-dir such a file is moved there instead, and the others are loaded.
  if (folders.failedDir === undefined) {
    // a zero-byte file is an empty load, not a file without a header
    for (const f of files) {
      if (f.size === 0 || !ordered.has(f.path) || (routes !== null && !routes.has(f.path))) continue;
      const fileProfile = routes === null ? profile : routes.get(f.path);
      await checkFileEncoding(f.path, await fileEncoding(f.path, fileProfile?.spec.encoding ?? options.encoding), fileProfile?.spec.format);
      (await openOrderFile(f.path, { encoding: options.encoding, delimiter: options.delimiter, profile: fileProfile })).close();
    }
  }
  return withLoader(ctx, { processes: command === 'load' }, async (loader) => {
    const progress = progressOf(ctx);
    const markdown = format === 'markdown' && !options.json;
    let codes: ErrorCodeCount[] = [];
    // what the report and the metrics read of the database, read before the files are moved:
    // the run is committed then, and the database may be gone after the moves
    const beforeMoves = async (loadIds: number[]) => {
      if (markdown) codes = await loader.errorCodeCounts(loadIds);
      await readStateForMetrics(ctx, loader);
    };
    const run = {
      ...runOptions(ctx, progress),
      profile,
      profiles,
      ...folders,
      listed: files,
      readySuffix: options['ready-suffix'],
      settleMs: options.settle,
      listing,
      beforeMoves,
      // another run staging one of these files at once (no inbox lock between them): waited for as long as for an inbox
      claimWaitMs: options['lock-timeout'] ?? defaultLockTimeoutMs(command),
    };
    const report = command === 'load' ? await loader.load(paths, run) : await loader.stage(paths, run);
    progress.clear();
    ctx.session.report = report;
    Object.assign(ctx.summary, {
      runIds: report.files.map((f) => f.runId),
      files: report.files.map((f) => ({ file: f.file, loadId: f.loadId, ...f.counts, tally: f.tally })),
      process: report.process,
      // each phase's own work and rate: rows settled while staging count as staging's
      rates: phaseRates(report),
      earlierLoadRows: report.earlierLoadRows,
      aborted: report.aborted,
      archived: report.archived.length,
      unreadable: report.unreadable.length,
      notRead: report.notRead.length,
      empty: report.empty.length,
      ignored: report.ignored.length,
      unmatched: report.unmatched?.length ?? 0,
    });
    // the whole command's time, from the start of the command line (opening the database included)
    const timing = commandTiming(ctx.session);
    const shown = { ...report, ...timing };
    if (files.length === 0) {
      const message = nothingMessage(ctx, command, listing);
      if (options.json) printReport(ctx, { ...shown, message }, (r) => JSON.stringify(r));
      else if (markdown) printReport(ctx, report, (r) => renderLoadMarkdown(r, codes, new Date(), timing));
      else
        printReport(ctx, report, (r) =>
          [...listingLines(listing).map((l) => escapeControl(l)), renderNothingToLoad(message, r)].join('\n'),
        );
    } else if (markdown) printReport(ctx, report, (r) => renderLoadMarkdown(r, codes, new Date(), timing));
    else printReport(ctx, shown, (r) => renderLoadReport(r, timing));
    sayAborted(ctx.session, report.aborted);
    return report.exitCode;
  });
}

function nothingMessage(ctx: CommandContext, command: 'load' | 'stage', listing: Listing): string {
  const left = listing.notReady.length > 0 ? ` to read now (${listing.notReady.length} left for the next run)` : '';
  return `nothing to ${command}: no order files${left} in ${ctx.files.join(', ')}`;
}

/** What the listing left for the next run or did not read, one line each. */
function listingLines(listing: Listing): string[] {
  return [...listing.notReady.map((n) => n.reason), ...listing.ignored.map((i) => i.reason)];
}

/**
 * A directory or pattern that names no order file to read now, for a command that needs no
 * database then (`stage`, a dry run): said, and nothing to do (exit 0). What it left for the next
 * run or did not read is in the report (and the metrics file).
 */
function nothingToLoad(ctx: CommandContext, command: 'load' | 'stage', listing: Listing = { notReady: [], ignored: [] }): number {
  if (ctx.files.length === 0) throw new UserError(`${command}: name at least one file, directory or pattern`);
  const message = nothingMessage(ctx, command, listing);
  // a file named on the command line and not read: the run did not do what it was asked
  const exitCode = listing.notReady.some((n) => n.named !== undefined) ? EXIT_ROWS_REJECTED : EXIT_OK;
  const report: LoadReport = {
    command,
    files: [],
    process: null,
    elapsedMs: 0,
    stageMs: 0,
    processMs: 0,
    aborted: null,
    notRead: listing.notReady,
    unreadable: [],
    archived: [],
    empty: [],
    ignored: listing.ignored,
    retryWait: null,
    earlierLoadRows: 0,
    exitCode,
  };
  ctx.session.report = report;
  print(
    ctx.session,
    ctx.options.json
      ? JSON.stringify({
          command,
          files: [],
          notRead: report.notRead,
          unreadable: [],
          archived: [],
          empty: [],
          ignored: report.ignored,
          message,
          exitCode,
        })
      : [...listingLines(listing), message].map((l) => escapeControl(l)).join('\n'),
  );
  return exitCode;
}
