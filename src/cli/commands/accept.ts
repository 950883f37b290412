import { EXIT_OK } from '../../pipeline/outcome.js';
import { commandTiming, print, progressOf, runOptions, sayAborted, withLoader, type CommandSpec } from '../command.js';
import { renderProcessReport } from '../render.js';
import { renderAccept } from '../render-control.js';
import { DRY_RUN_CHANGES } from './option-groups.js';

export const accept: CommandSpec = {
  usage: {
    label: 'accept <load>',
    summary: `let through a load HELD for its control totals (the file's trailer, header or control file
disagreed with what was read): its rows → READY, audited, then process them; --reason (required)`,
    synopsis: 'accept <load> --reason <text> [--operator <name>] [--dry-run] [--no-process]',
    about: `A file whose control totals (a profile's control:) differ from what was read is staged with every row HELD:
no run, rerun or recover releases them. Once checked with the partner, accept releases them (READY, one audit row
each, as retry), marks the load accepted, and processes them.`,
    options: [{ option: 'reason', text: 'required; recorded in order_stage_audit' }, 'operator', DRY_RUN_CHANGES, 'no-process'],
    exitCodes: 'Exit codes: 0 released (and, when processed, every row DONE); 2 processed, some rows ERROR or waiting; 1 could not.',
  },
  async run(ctx) {
    const { options } = ctx;
    // the pipeline's modules only for the commands that use them: no other command's start-up pays for them
    const [{ checkAcceptRequest }, { defaultOperator }] = await Promise.all([
      import('../../pipeline/accept.js'),
      import('../../pipeline/operations.js'),
    ]);
    const request = {
      loadId: Number(ctx.files[0]),
      reason: options.reason ?? '',
      operator: options.operator ?? defaultOperator(),
      dryRun: options['dry-run'],
    };
    // said before the database is opened
    checkAcceptRequest(request);
    return withLoader(ctx, { processes: true }, async (loader) => {
      const progress = progressOf(ctx);
      const { accept: report, process: processed } = await loader.accept(request, {
        ...runOptions(ctx, progress),
        process: !options['no-process'],
      });
      progress.clear();
      Object.assign(ctx.summary, {
        loadId: report.loadId,
        changed: report.count,
        dryRun: report.dryRun,
        runIds: processed === null ? [] : [processed.runId],
        process: processed?.process ?? null,
      });
      print(
        ctx.session,
        options.json
          ? JSON.stringify({ accept: report, process: processed })
          : renderAccept(report) + (processed === null ? '' : `\n${renderProcessReport(processed, commandTiming(ctx.session))}`),
      );
      sayAborted(ctx.session, processed?.aborted);
      return processed === null ? EXIT_OK : processed.exitCode;
    });
  },
};
