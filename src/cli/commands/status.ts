import { EXIT_OK } from '../../pipeline/outcome.js';
import { printReport, withLoader, type CommandSpec } from '../command.js';
import { renderStatus } from '../render.js';
import { STATUS_RECENT_LOADS } from '../../loader-status.js';

export const status: CommandSpec = {
  usage: {
    label: 'status',
    summary: `counts per status, and per load for the ${STATUS_RECENT_LOADS} newest loads (file, start; --all, --load-id,
--since for others), the oldest waiting row`,
    synopsis: 'status [--all | --load-id <n> … | --since <when>] [--json]',
    about: `Counts per status of every row; per load (its file and start) for the ${STATUS_RECENT_LOADS} newest loads, with a count of
the others; the oldest waiting row, RETRY_WAIT, the last 5 runs. Exit 0.`,
    options: [{ option: 'all', text: 'every load' }, { option: 'load-id', text: 'these loads (repeatable)' }, 'since'],
  },
  run: (ctx) =>
    withLoader(ctx, {}, async (loader) => {
      const { options } = ctx;
      const filter = { all: options.all, loadIds: options['load-id'], since: options.since ?? null };
      printReport(ctx, await loader.status(filter), renderStatus);
      return EXIT_OK;
    }),
};
