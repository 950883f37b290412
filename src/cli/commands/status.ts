import { EXIT_OK } from '../../pipeline/outcome.js';
import { printReport, withLoader, type CommandSpec } from '../command.js';
import { renderStatus } from '../render.js';

export const status: CommandSpec = {
  usage: {
    label: 'status',
    summary: 'counts per status and per load, oldest waiting row',
    synopsis: 'status [--json]',
    about: 'Counts per status and per load, the oldest waiting row, RETRY_WAIT, the last 5 runs. Exit 0.',
  },
  run: (ctx) =>
    withLoader(ctx, {}, async (loader) => {
      printReport(ctx, await loader.status(), renderStatus);
      return EXIT_OK;
    }),
};
