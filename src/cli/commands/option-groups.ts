/** Usage lines several commands share. */
import type { OptionLine } from '../command.js';

/** The options of a processing run (load, process, retry). */
export const PROCESSING_OPTIONS: readonly OptionLine[] = ['chunk-size', 'workers', 'max-errors', 'max-attempts', 'row-lock-wait'];

/** The options of reading a file (load, stage). */
export const FILE_OPTIONS: readonly OptionLine[] = [
  'batch-size',
  'encoding',
  'delimiter',
  'profile',
  'profiles',
  'restage',
  'max-inflate',
  'archive-dir',
  'failed-dir',
  'settle',
  'ready-suffix',
];

export const DRY_RUN_FILES: OptionLine = {
  option: 'dry-run',
  text: 'parse and validate with the rules of a real load, write nothing, open no database',
};
export const DRY_RUN_CHANGES: OptionLine = { option: 'dry-run', text: 'show what would change, change nothing' };

export const REPORT_FORMAT: OptionLine = {
  option: 'format',
  arg: 'text|markdown',
  text: 'the report as text (default), or as a Markdown document (files, error codes, where the files went)',
};
