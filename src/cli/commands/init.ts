import { EXIT_OK } from '../../pipeline/outcome.js';
import { print, withLoader, type CommandSpec } from '../command.js';

export const init: CommandSpec = {
  usage: {
    label: 'init',
    summary: 'create or upgrade the schema (safe to run again)',
    synopsis: 'init [--db <url>]',
    about: 'Create or upgrade the schema (safe to run again; every other command applies pending migrations too).',
    exitCodes: 'Exit codes: 0 done; 1 could not.',
  },
  run: (ctx) =>
    withLoader(ctx, {}, async (loader) => {
      const applied = await loader.init();
      print(
        ctx.session,
        ctx.options.json ? JSON.stringify({ applied }) : applied.length > 0 ? `applied: ${applied.join(', ')}` : 'schema is up to date',
      );
      return EXIT_OK;
    }),
};
