/** load and stage: the files are checked before the database is opened, then staged (and, for load, processed). */
import { existsSync } from 'node:fs';
import { UserError } from '../../errors.js';
import { openOrderFile } from '../../input/order-file.js';
import { OrderLoader } from '../../loader.js';
import { dryRunExitCode } from '../../pipeline/outcome.js';
import { print, printReport, progressOf, runOptions, sayAborted, withLoader, type CommandContext } from '../command.js';
import { renderDryRun, renderLoadReport } from '../render.js';
import { renderLoadMarkdown, reportFormat } from '../render-markdown.js';

export async function stageFiles(ctx: CommandContext, command: 'load' | 'stage'): Promise<number> {
  const { files, options } = ctx;
  const format = reportFormat(command, options.format);
  // A user error in the files is reported before the database is even opened.
  for (const file of files) {
    if (!existsSync(file)) throw new UserError(`${file}: no such file`);
  }
  if (options['dry-run']) {
    // --dry-run writes nothing and needs no database
    const results = await OrderLoader.dryRunFiles(files, {
      encoding: options.encoding,
      delimiter: options.delimiter,
      batchSize: options['batch-size'],
      logger: ctx.logger,
    });
    print(ctx.session, options.json ? JSON.stringify({ dryRun: true, files: results }) : renderDryRun(results));
    return dryRunExitCode(results, command);
  }
  // Every header is checked before the database is opened: creating and migrating a fresh
  // embedded database takes seconds, and a file missing a column would be refused anyway.
  for (const path of files) (await openOrderFile(path, { encoding: options.encoding, delimiter: options.delimiter })).close();
  return withLoader(ctx, { processes: command === 'load' }, async (loader) => {
    const progress = progressOf(ctx);
    const run = runOptions(ctx, progress);
    const report = command === 'load' ? await loader.load(files, run) : await loader.stage(files, run);
    progress.clear();
    ctx.session.report = report;
    Object.assign(ctx.summary, {
      runIds: report.files.map((f) => f.runId),
      files: report.files.map((f) => ({ file: f.file, loadId: f.loadId, ...f.counts, tally: f.tally })),
      process: report.process,
      aborted: report.aborted,
    });
    if (format === 'markdown' && !options.json) {
      const codes = await loader.errorCodeCounts([...new Set(report.files.map((f) => f.loadId))]);
      printReport(ctx, report, (r) => renderLoadMarkdown(r, codes, new Date()));
    } else printReport(ctx, report, renderLoadReport);
    sayAborted(ctx.session, report.aborted);
    return report.exitCode;
  });
}
