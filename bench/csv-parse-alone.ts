/**
 * The reference rate of target 2 (bench/parse-rate.ts): csv-parse alone reading an order file
 * with its default options, records counted and dropped. No line/byte bookkeeping, no raw text,
 * no validation: the floor of any parse built on csv-parse.
 *
 *   node dist/bench/csv-parse-alone.js FILE [DELIMITER] [FROM_LINE]   → {"records":N}
 *
 * DELIMITER and FROM_LINE (csv-parse's `delimiter` and `from_line`) read a file of another shape
 * (bench/profile-rate.ts: the European file, ";" and a banner line before its header).
 */
import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';

const [file, delimiter = ',', fromLine = '1'] = process.argv.slice(2);
if (file === undefined) throw new Error('usage: csv-parse-alone.js FILE [DELIMITER] [FROM_LINE]');
let records = 0;
for await (const record of createReadStream(file, { highWaterMark: 256 * 1024 }).pipe(parse({ delimiter, from_line: Number(fromLine) }))) {
  if ((record as string[]).length > 0) records++;
}
process.stdout.write(`${JSON.stringify({ records })}\n`);
