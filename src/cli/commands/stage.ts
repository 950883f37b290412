import type { CommandSpec } from '../command.js';
import { DRY_RUN_FILES, FILE_OPTIONS, REPORT_FORMAT } from './option-groups.js';
import { stageFiles } from './stage-files.js';

export const stage: CommandSpec = {
  usage: {
    label: 'stage <file…>',
    summary: 'stage only',
    synopsis: 'stage <file…> [options]',
    about:
      'Stage only (order-loader process merges the rows later).\nA directory means its order files, a pattern its matches; gzip files are read decompressed.',
    options: [...FILE_OPTIONS, 'max-errors', DRY_RUN_FILES, REPORT_FORMAT],
    exitCodes:
      'Exit codes: 0 nothing rejected; 2 some lines rejected or rows ERROR, a file moved to --failed-dir, or a file no --profiles profile matches; 1 could not finish.',
  },
  run: (ctx) => stageFiles(ctx, 'stage'),
};
