/** load and stage: the files are checked before the database is opened, then staged (and, for load, processed). */
import { UserError } from '../../errors.js';
import { lockInboxes } from '../../input/inbox-lock.js';
import { expandInputs, inputFolder } from '../../input/inputs.js';
import { openOrderFile } from '../../input/order-file.js';
import { OrderLoader } from '../../loader.js';
import { checkFileFolders } from '../../pipeline/archive.js';
import type { ErrorCodeCount } from '../../pipeline/error-codes.js';
import { dryRunExitCode, EXIT_FAILED, EXIT_OK } from '../../pipeline/outcome.js';
import {
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

export async function stageFiles(ctx: CommandContext, command: 'load' | 'stage'): Promise<number> {
  const { options } = ctx;
  const format = reportFormat(command, options.format);
  if (options['dry-run']) {
    // --dry-run writes nothing, moves nothing and needs no database
    const { files } = expandInputs(ctx.files);
    if (files.length === 0) return nothingToLoad(ctx, command);
    const results = await OrderLoader.dryRunFiles(
      files.map((f) => f.path),
      { encoding: options.encoding, delimiter: options.delimiter, batchSize: options['batch-size'], logger: ctx.logger },
    );
    print(ctx.session, options.json ? JSON.stringify({ dryRun: true, files: results }) : renderDryRun(results));
    return dryRunExitCode(results, command);
  }
  const folders = { archiveDir: options['archive-dir'], failedDir: options['failed-dir'] };
  const movesFiles = folders.archiveDir !== undefined || folders.failedDir !== undefined;
  const inboxes = inboxDirs(ctx.files, movesFiles);
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
    code = await listAndStage(ctx, command, format, folders);
    return code;
  } finally {
    // --metrics-file before the lock goes: a run queued behind this one writes its own after
    // it, so the file ends with the latest run and the latest state of the database
    ctx.session.writeMetrics?.(code);
    lock.release();
  }
}

async function listAndStage(
  ctx: CommandContext,
  command: 'load' | 'stage',
  format: 'text' | 'markdown',
  folders: { archiveDir: string | undefined; failedDir: string | undefined },
): Promise<number> {
  const { options } = ctx;
  const { files } = expandInputs(ctx.files);
  // `stage` with nothing to stage needs no database; `load` still processes the rows of earlier loads that are due
  if (files.length === 0 && command === 'stage') return nothingToLoad(ctx, command);
  const paths = files.map((f) => f.path);
  // Every header is checked before the database is opened: creating and migrating a fresh
  // embedded database takes seconds, and a file missing a column would be refused anyway.
  // With --failed-dir such a file is moved there instead, and the others are loaded.
  if (folders.failedDir === undefined) {
    for (const path of paths) (await openOrderFile(path, { encoding: options.encoding, delimiter: options.delimiter })).close();
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
    const run = { ...runOptions(ctx, progress), ...folders, listed: files, beforeMoves };
    const report = command === 'load' ? await loader.load(paths, run) : await loader.stage(paths, run);
    progress.clear();
    ctx.session.report = report;
    Object.assign(ctx.summary, {
      runIds: report.files.map((f) => f.runId),
      files: report.files.map((f) => ({ file: f.file, loadId: f.loadId, ...f.counts, tally: f.tally })),
      process: report.process,
      earlierLoadRows: report.earlierLoadRows,
      aborted: report.aborted,
      archived: report.archived.length,
      unreadable: report.unreadable.length,
      notRead: report.notRead.length,
    });
    if (files.length === 0) {
      const message = nothingMessage(ctx, command);
      if (options.json) printReport(ctx, { ...report, message }, (r) => JSON.stringify(r));
      else if (markdown) printReport(ctx, report, (r) => renderLoadMarkdown(r, codes, new Date()));
      else printReport(ctx, report, (r) => renderNothingToLoad(message, r));
    } else if (markdown) printReport(ctx, report, (r) => renderLoadMarkdown(r, codes, new Date()));
    else printReport(ctx, report, renderLoadReport);
    sayAborted(ctx.session, report.aborted);
    return report.exitCode;
  });
}

function nothingMessage(ctx: CommandContext, command: 'load' | 'stage'): string {
  return `nothing to ${command}: no order files in ${ctx.files.join(', ')}`;
}

/** A directory or pattern that names no order file: said, and nothing to do (exit 0). */
function nothingToLoad(ctx: CommandContext, command: 'load' | 'stage'): number {
  const message = nothingMessage(ctx, command);
  if (ctx.files.length === 0) throw new UserError(`${command}: name at least one file, directory or pattern`);
  print(
    ctx.session,
    ctx.options.json
      ? JSON.stringify({ command, files: [], notRead: [], unreadable: [], archived: [], message, exitCode: EXIT_OK })
      : escapeControl(message),
  );
  return EXIT_OK;
}
