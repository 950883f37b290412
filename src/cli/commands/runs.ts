import { EXIT_OK } from '../../pipeline/outcome.js';
import { printReport, withLoader, type CommandSpec } from '../command.js';
import { renderRuns } from '../render.js';

export const runs: CommandSpec = {
  usage: {
    label: 'runs',
    summary: 'run history with events',
    synopsis: 'runs [--limit <n>] [--json]',
    about: 'Run history with its events, newest first. --limit: how many runs (default 20). Exit 0.',
  },
  run: (ctx) =>
    withLoader(ctx, {}, async (loader) => {
      printReport(ctx, await loader.runs(ctx.options.limit ?? 20), renderRuns);
      return EXIT_OK;
    }),
};
