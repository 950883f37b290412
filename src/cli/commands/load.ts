import type { CommandSpec } from '../command.js';
import { DRY_RUN_FILES, FILE_OPTIONS, PROCESSING_OPTIONS, REPORT_FORMAT } from './option-groups.js';
import { stageFiles } from './stage-files.js';

export const load: CommandSpec = {
  usage: {
    label: 'load <file…>',
    summary: 'stage each file, then process until nothing is claimable',
    synopsis: 'load <file…> [options]',
    about:
      'Stage each file, then process until nothing is claimable.\nA directory means its order files, a pattern its matches; gzip files are read decompressed.',
    options: [
      ...FILE_OPTIONS,
      ...PROCESSING_OPTIONS,
      { option: 'no-overlap', text: 'server databases: process once every file is staged (default: while staging, same outcome)' },
      { option: 'overlap', text: 'server databases: process while staging (the default; kept for scripts)' },
      DRY_RUN_FILES,
      REPORT_FORMAT,
    ],
    exitCodes:
      'Exit codes: 0 every row DONE; 2 finished, some rows ERROR, rejected or waiting to retry, a file moved to --failed-dir, a file no --profiles profile matches, or a file named on the command line still being written or changed since it was listed (not read); 1 could not finish.',
  },
  run: (ctx) => stageFiles(ctx, 'load'),
};
