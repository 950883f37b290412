/** load and stage: the files are checked before the database is opened, then staged (and, for load, processed). */
import { UserError } from '../../errors.js';
import { lockInboxes } from '../../input/inbox-lock.js';
import { expandInputs, inputFolder } from '../../input/inputs.js';
import { openOrderFile } from '../../input/order-file.js';
import { OrderLoader } from '../../loader.js';
import { checkFileFolders } from '../../pipeline/archive.js';
import { dryRunExitCode, EXIT_OK } from '../../pipeline/outcome.js';
import { print, printReport, progressOf, runOptions, sayAborted, withLoader, type CommandContext } from '../command.js';
import { escapeControl } from '../escape.js';
import { defaultLockTimeoutMs } from '../options.js';
import { renderDryRun, renderLoadReport } from '../render.js';
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
  try {
    const { files } = expandInputs(ctx.files);
    if (files.length === 0) return nothingToLoad(ctx, command);
    const paths = files.map((f) => f.path);
    // Every header is checked before the database is opened: creating and migrating a fresh
    // embedded database takes seconds, and a file missing a column would be refused anyway.
    // With --failed-dir such a file is moved there instead, and the others are loaded.
    if (folders.failedDir === undefined) {
      for (const path of paths) (await openOrderFile(path, { encoding: options.encoding, delimiter: options.delimiter })).close();
    }
    return await withLoader(ctx, { processes: command === 'load' }, async (loader) => {
      const progress = progressOf(ctx);
      const run = { ...runOptions(ctx, progress), ...folders, listed: files };
      const report = command === 'load' ? await loader.load(paths, run) : await loader.stage(paths, run);
      progress.clear();
      ctx.session.report = report;
      Object.assign(ctx.summary, {
        runIds: report.files.map((f) => f.runId),
        files: report.files.map((f) => ({ file: f.file, loadId: f.loadId, ...f.counts, tally: f.tally })),
        process: report.process,
        aborted: report.aborted,
        archived: report.archived.length,
        unreadable: report.unreadable.length,
        notRead: report.notRead.length,
      });
      if (format === 'markdown' && !options.json) {
        const codes = await loader.errorCodeCounts([...new Set(report.files.map((f) => f.loadId))]);
        printReport(ctx, report, (r) => renderLoadMarkdown(r, codes, new Date()));
      } else printReport(ctx, report, renderLoadReport);
      sayAborted(ctx.session, report.aborted);
      return report.exitCode;
    });
  } finally {
    lock.release();
  }
}

/** A directory or pattern that names no order file: said, and nothing to do (exit 0). */
function nothingToLoad(ctx: CommandContext, command: 'load' | 'stage'): number {
  const message = `nothing to ${command}: no order files in ${ctx.files.join(', ')}`;
  if (ctx.files.length === 0) throw new UserError(`${command}: name at least one file, directory or pattern`);
  print(
    ctx.session,
    ctx.options.json
      ? JSON.stringify({ command, files: [], notRead: [], unreadable: [], archived: [], message, exitCode: EXIT_OK })
      : escapeControl(message),
  );
  return EXIT_OK;
}
