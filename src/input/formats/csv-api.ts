/** csv-parse as the delimited reader drives it, and what its errors mean for the file. */
import { Parser, type Options } from 'csv-parse';

/**
 * The part of csv-parse's parser object (csv-parse 7.0.3, lib/api/index.js; the version is
 * pinned) that its stream drives: `parse(buffer, end, push, close)` parses synchronously, calls
 * `push` for each record and returns the error that stopped it; `info` holds the running counts.
 * We drive it directly: the stream's `on_record` hook builds two info objects per record
 * (`__infoRecord` spreads `__infoDataSet`), measured 20 % of the dry run's CPU, while the two
 * numbers we need are on `info` at the moment `push` is called.
 */
export interface CsvApi {
  info: { readonly bytes: number; readonly lines: number };
  state?: { expectedRecordLength?: number };
  parse(buffer: Buffer | undefined, end: boolean, push: (record: string[]) => void, close: () => void): Error | undefined;
}

export function csvApi(options: Options): CsvApi {
  const api = (new Parser(options) as unknown as { api?: CsvApi }).api;
  if (api === undefined || typeof api.parse !== 'function' || typeof api.info.bytes !== 'number') {
    throw new Error('csv-parse: its parser API is not the one this reader was written for (pinned csv-parse 7.0.3)');
  }
  return api;
}

/**
 * csv-parse errors that concern one line only: the line is rejected and reading goes on. Under
 * relax_quotes only a record too large is one (the two quote errors stay listed: should a quote
 * ever be read strictly again, they are line-local too). An unterminated quote that reaches the
 * end of the file is structural: it stops the file.
 */
export const LINE_LOCAL_CSV_ERRORS = new Set(['CSV_MAX_RECORD_SIZE', 'INVALID_OPENING_QUOTE', 'CSV_INVALID_CLOSING_QUOTE']);

export function csvErrorSummary(e: Error & { code?: string }): string {
  switch (e.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted field is not closed (unterminated quote)';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'a closing quote is followed by other characters';
    case 'INVALID_OPENING_QUOTE':
      return 'a quote appears inside an unquoted field';
    case 'CSV_MAX_RECORD_SIZE':
      return 'a record is larger than the maximum record size';
    default:
      return e.message.replace(/\s+/g, ' ').slice(0, 200);
  }
}
