import { UserError } from '../../errors.js';
import { EXIT_OK } from '../../pipeline/outcome.js';
import { withLoader, type CommandSpec } from '../command.js';

export const errors: CommandSpec = {
  usage: {
    label: 'errors',
    summary: `every rejected line with its latest error: the ERROR rows and the lines refused
while staging; --format csv (re-loadable once fixed) | excel | json;
--load-id, --error-code, --limit`,
    synopsis: 'errors [--format csv|excel|json] [--load-id <n>] [--error-code <code>] [--limit <n>]',
    about:
      'Every rejected line with its latest error: the ERROR rows and the lines refused while staging. CSV (default) can be loaded again once fixed; excel: the same CSV with a byte order mark, CRLF and keys, ids, dates and amounts as ="…" text, so that it survives an open-edit-save in Excel. Exit 0.',
    options: [
      { option: ['load-id', 'error-code'], text: 'repeatable filters' },
      { option: 'limit', text: 'at most n rows (default: all, streamed)' },
    ],
  },
  run: (ctx) => {
    const format = ctx.options.format ?? 'csv';
    if (format !== 'csv' && format !== 'excel' && format !== 'json')
      throw new UserError(`errors --format takes csv, excel or json (not ${format})`);
    return withLoader(ctx, {}, async (loader) => {
      // the CSV writer (csv-stringify) only for this command: no other command's start-up pays for it
      const { writeErrorsCsv, writeErrorsJson } = await import('../errors-csv.js');
      const { options } = ctx;
      const rows = () => loader.errorRows({ loadIds: options['load-id'], errorCodes: options['error-code'], limit: options.limit });
      // stdout is the export from here on: a later failure must not append a second document
      ctx.session.printed = true;
      try {
        await (format === 'json' || options.json
          ? writeErrorsJson(rows(), ctx.session.io.stdout)
          : writeErrorsCsv(rows, ctx.session.io.stdout, { excel: format === 'excel' }));
      } catch (error) {
        // the reader went away (`errors | head -1`): nothing more is wanted, not a failure
        if ((error as NodeJS.ErrnoException).code !== 'EPIPE') throw error;
      }
      return EXIT_OK;
    });
  },
};
