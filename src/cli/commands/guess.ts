import { writeFile } from 'node:fs/promises';
import { UserError } from '../../errors.js';
import { EXIT_OK, EXIT_ROWS_REJECTED } from '../../pipeline/outcome.js';
import { print, type CommandSpec } from '../command.js';

export const guess: CommandSpec = {
  usage: {
    label: 'guess FILE',
    summary: `read the start of a file (gzip too) and draft a load profile, its evidence as
comments (no database opened)`,
    synopsis: 'guess <file> [--out <path>]',
    about: `Read the start of a file (64 KiB of its content, decompressed when gzip) and write a draft
load profile: the encoding and why, line endings, the delimiter candidates and how consistent
each is, or the fixed-width boundaries it sees; header, banner and trailer lines; for each of
the five fields the column it proposes with sample values and why, the date masks that fit with
their hit rates, the number style. What it cannot decide (a date that reads day first and month
first, several columns of amounts and no sum or name telling the total, a currency nothing in the
file or its name gives) is an open choice: an open: line naming the candidates, which load and
preview refuse until it is decided. JSON, JSON Lines, workbooks (xlsx, xls, ods), PDF and zip
files are recognised and refused with what to do. No database is opened.`,
    options: [{ option: 'out', text: 'write the profile there (refused when it exists) instead of on stdout' }],
    exitCodes: `Exit codes: 0 a draft that loads as it is was written; 2 a draft was written with open choices (listed on
stderr: decide each before loading); 1 the file cannot be read as order text (the line says why).`,
  },
  run: async (ctx) => {
    const [file, more] = ctx.files;
    if (file === undefined) throw new UserError('guess: name the file to read');
    if (more !== undefined) throw new UserError(`guess reads one file (got ${more} too)`);
    // imported here: the other commands start without guess's detectors
    const { guessProfile } = await import('../../input/guess/index.js');
    const guessed = await guessProfile(file);
    const out = ctx.options.out;
    if (out !== undefined) {
      try {
        // a profile edited by hand is never overwritten by a draft
        await writeFile(out, guessed.yaml, { flag: 'wx' });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw new UserError(`--out ${out} exists: remove it or name another file`, { cause: error });
        if (code !== undefined) throw new UserError(`--out ${out}: cannot be written (${code})`, { cause: error });
        throw error;
      }
    }
    if (ctx.options.json) print(ctx.session, JSON.stringify(guessed));
    else if (out !== undefined) print(ctx.session, `draft profile of ${file} written to ${out}: check it before loading with it`);
    else print(ctx.session, guessed.yaml);
    ctx.summary.file = file;
    if (guessed.open.length === 0) return EXIT_OK;
    const list = guessed.open.map((o) => `  - ${o}`).join('\n');
    ctx.session.io.stderr.write(
      `order-loader: the draft leaves ${guessed.open.length} choice(s) open (load refuses it until each is decided):\n${list}\n`,
    );
    return EXIT_ROWS_REJECTED;
  },
};
