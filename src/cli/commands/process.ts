import {
  commandTiming,
  printReport,
  progressOf,
  readStateForMetrics,
  runOptions,
  sayAborted,
  withLoader,
  type CommandSpec,
} from '../command.js';
import { renderProcessReport } from '../render.js';
import { PROCESSING_OPTIONS, REPORT_FORMAT } from './option-groups.js';
import { renderProcessMarkdown, reportFormat } from '../render-markdown.js';

export const processCommand: CommandSpec = {
  usage: {
    label: 'process',
    summary: 'process claimable rows of any load (run several at once on a server database)',
    synopsis: 'process [options]',
    about: 'Process claimable rows of any load until nothing is claimable now (run several at once to scale out).',
    options: [...PROCESSING_OPTIONS, REPORT_FORMAT],
    exitCodes: 'Exit codes: 0 every claimed row DONE; 2 some ended ERROR or wait in RETRY_WAIT; 1 could not finish.',
  },
  run: (ctx) => {
    const format = reportFormat('process', ctx.options.format);
    return withLoader(ctx, { processes: true }, async (loader) => {
      const progress = progressOf(ctx);
      const report = await loader.process(runOptions(ctx, progress));
      progress.clear();
      await readStateForMetrics(ctx, loader);
      ctx.session.report = report;
      Object.assign(ctx.summary, { runIds: [report.runId], process: report.process, aborted: report.aborted });
      const timing = commandTiming(ctx.session);
      printReport(
        ctx,
        { ...report, ...timing },
        format === 'markdown' ? (r) => renderProcessMarkdown(r, new Date(), timing) : (r) => renderProcessReport(r, timing),
      );
      sayAborted(ctx.session, report.aborted);
      return report.exitCode;
    });
  },
};
