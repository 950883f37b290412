import { EXIT_OK } from '../../pipeline/outcome.js';
import { printReport, withLoader, type CommandSpec } from '../command.js';
import { renderManualChanges } from '../render.js';
import { DRY_RUN_CHANGES } from './option-groups.js';

export const recover: CommandSpec = {
  usage: {
    label: 'recover',
    summary: `PROCESSING rows no live transaction holds, older than --older-than (15m) → READY, audited;
the HELD rows of a load killed while staging, held longer than that → READY, audited (gives its files up)`,
    synopsis: 'recover [--older-than <duration>] [--reason <text>] [--operator <name>] [--dry-run]',
    about: `PROCESSING rows that no live transaction holds and older than --older-than → READY, audited. The HELD rows of
loads that no running command stages, last held longer ago than --older-than → READY, audited the same way; the
HELD rows it keeps are listed with what releases them.`,
    options: [
      'older-than',
      { option: 'reason', text: 'recorded in order_stage_audit (default: says what recover did)' },
      'operator',
      DRY_RUN_CHANGES,
    ],
    exitCodes: 'Exit codes: 0 done (also when no row needed it); 1 could not.',
  },
  run: (ctx) =>
    withLoader(ctx, {}, async (loader) => {
      const { options } = ctx;
      const { defaultOperator, defaultRecoverReason } = await import('../../pipeline/operations.js');
      const report = await loader.recover({
        olderThanMs: options['older-than'],
        operator: options.operator ?? defaultOperator(),
        reason: options.reason ?? defaultRecoverReason(options['older-than']),
        dryRun: options['dry-run'],
      });
      Object.assign(ctx.summary, { changed: report.changes.length, dryRun: report.dryRun });
      printReport(ctx, report, (r) => renderManualChanges('recover', r));
      return EXIT_OK;
    }),
};
