import { UserError } from '../../errors.js';
import { loadProfileFile } from '../../input/profile/load-profile.js';
import { print, type CommandSpec } from '../command.js';

/** Lines shown unless --rows says how many. */
export const PREVIEW_ROWS = 20;

/** Columns of the table when stdout is not a terminal (--format text into a pipe or a file). */
const DEFAULT_WIDTH = 120;

export const preview: CommandSpec = {
  usage: {
    label: 'preview FILE',
    summary: `show line by line how a file would be loaded (with --profile, through that profile):
each field as read, as the profile reads it and as it would be staged, or the error a load
would log; then totals for the whole file (no database opened, nothing written)`,
    synopsis: 'preview <file> [--profile <file>] [--rows <n>] [--format text|json]',
    about: `Read a file as load --dry-run does (the same reader, profile and rules; gzip too), and show
its first lines: for each data line the five fields as read, as the profile reads them (trimmed,
null_if, normalize) and the value that would be staged, or the error code and message a load
would log; lines skipped (banner, comment, header) and discarded by when, each said as such.
Then totals over the whole file: would stage, rejected and invalid by code, discarded, skipped.
A table on a terminal; one JSON document otherwise (or with --json). No database is opened.`,
    options: [
      { option: 'profile', text: 'read the file through this load profile (default: the built-in format)' },
      'encoding',
      'delimiter',
      { option: 'rows', text: `lines shown, from the first (default ${PREVIEW_ROWS}); the totals always cover the whole file` },
      {
        option: 'format',
        arg: 'text|json',
        text: 'text: the table (the default on a terminal); json: one JSON document (the default otherwise, as --json)',
      },
    ],
    exitCodes:
      "Exit codes, as load --dry-run: 0 every data line would load; 2 lines rejected or rows that would end ERROR, or when discarded every line; 1 the file cannot be read (refused header, a line it cannot be read past), or its control totals (a profile's control:) would hold or refuse it.",
  },
  run: async (ctx) => {
    const { options, session } = ctx;
    const [file, more] = ctx.files;
    if (file === undefined || more !== undefined) throw new UserError('preview: name one file to read');
    const format = options.format;
    if (format !== undefined && format !== 'text' && format !== 'json')
      throw new UserError(`preview --format takes text or json (got ${format})`);
    // the preview's modules only for the preview: no other command's start-up pays for them
    const [{ previewFile }, { renderPreview }] = await Promise.all([import('../../pipeline/preview.js'), import('../render-preview.js')]);
    // checked before the file is opened
    const profile = options.profile === undefined ? undefined : loadProfileFile(options.profile);
    const result = await previewFile(file, {
      profile,
      encoding: options.encoding,
      delimiter: options.delimiter,
      rows: options.rows ?? PREVIEW_ROWS,
    });
    const json = options.json || format === 'json' || (format === undefined && session.io.stdout.isTTY !== true);
    print(session, json ? JSON.stringify(result) : renderPreview(result, session.io.stdout.columns ?? DEFAULT_WIDTH));
    Object.assign(ctx.summary, { file, profile: result.profile?.name, totals: result.totals });
    return result.exitCode;
  },
};
