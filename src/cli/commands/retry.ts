import { EXIT_OK } from '../../pipeline/outcome.js';
import { commandTiming, print, progressOf, runOptions, sayAborted, withLoader, type CommandSpec } from '../command.js';
import { renderManualChanges, renderProcessReport } from '../render.js';
import { DRY_RUN_CHANGES, PROCESSING_OPTIONS } from './option-groups.js';

export const retry: CommandSpec = {
  usage: {
    label: 'retry',
    summary: `ERROR → READY for the chosen rows, audited, then process them
--stage-id/--source-key/--error-code/--load-id (repeatable) or --all-errors;
--set field=value (repeatable corrections); --reason (required); --operator;
--dry-run shows what would change; --no-process only marks them READY`,
    synopsis: `retry (--stage-id <n> | --source-key <key> | --error-code <code> | --load-id <n> … | --all-errors)
                          --reason <text> [--set field=value …] [--operator <name>] [--dry-run] [--no-process]`,
    about: `ERROR → READY for the chosen rows, audited, then process them. A selector given several times matches any of
its values; different selectors must all match.`,
    options: [
      'set',
      { option: 'reason', text: 'required; recorded in order_stage_audit' },
      'operator',
      DRY_RUN_CHANGES,
      'no-process',
      ...PROCESSING_OPTIONS,
    ],
    exitCodes: `Exit codes: 0 changed (and, when processed, every row DONE); 2 processed, some rows ERROR or waiting; 1 could not.
Rows of a load held for its control totals, or held by an unfinished set (a killed multi-file load's), are left ERROR and named with what lets them through (accept; the set's rerun or recover --older-than): not a failure of retry.`,
  },
  async run(ctx) {
    const { options } = ctx;
    // the pipeline's modules only for the commands that use them: no other command's start-up pays for them
    const [{ parseCorrections }, { checkRetryRequest, defaultOperator }] = await Promise.all([
      import('../../pipeline/corrections.js'),
      import('../../pipeline/operations.js'),
    ]);
    const request = {
      selector: {
        stageIds: options['stage-id'],
        sourceKeys: options['source-key'],
        errorCodes: options['error-code'],
        loadIds: options['load-id'],
      },
      all: options['all-errors'],
      corrections: parseCorrections(options.set),
      reason: options.reason ?? '',
      operator: options.operator ?? defaultOperator(),
      dryRun: options['dry-run'],
    };
    // a retry request's mistakes (no --reason, no selector, a bad --set) are said before the database is opened
    checkRetryRequest(request);
    return withLoader(ctx, { processes: true }, async (loader) => {
      const progress = progressOf(ctx);
      const { retry, process: processed } = await loader.retry(request, { ...runOptions(ctx, progress), process: !options['no-process'] });
      progress.clear();
      Object.assign(ctx.summary, {
        changed: retry.count,
        // rows chosen and left ERROR because their load is held for its control totals
        ...(retry.controlHeld === undefined ? {} : { controlHeld: retry.controlHeld }),
        dryRun: retry.dryRun,
        runIds: processed === null ? [] : [processed.runId],
        process: processed?.process ?? null,
      });
      print(
        ctx.session,
        options.json
          ? JSON.stringify({ retry, process: processed })
          : renderManualChanges('retry', retry) +
              (processed === null ? '' : `\n${renderProcessReport(processed, commandTiming(ctx.session))}`),
      );
      sayAborted(ctx.session, processed?.aborted);
      return processed === null ? EXIT_OK : processed.exitCode;
    });
  },
};
