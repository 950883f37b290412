import { writeFile } from 'node:fs/promises';
import { UserError } from '../../errors.js';
import { guessProfile } from '../../input/guess/index.js';
import { EXIT_OK } from '../../pipeline/outcome.js';
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
first, a missing currency) is left as a commented choice. No database is opened.`,
    options: [{ option: 'out', text: 'write the profile there (refused when it exists) instead of on stdout' }],
    exitCodes: 'Exit codes: 0 a draft was written; 1 the file cannot be read as text (the line says why).',
  },
  run: async (ctx) => {
    const [file, more] = ctx.files;
    if (file === undefined) throw new UserError('guess: name the file to read');
    if (more !== undefined) throw new UserError(`guess reads one file (got ${more} too)`);
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
    return EXIT_OK;
  },
};
