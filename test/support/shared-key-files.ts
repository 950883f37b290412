/**
 * Order files whose keys repeat within a file and across files (pure: the texts, seeded), for
 * the tests that compare the database with the state computed from the files
 * (test/support/expected-state.ts). Drawn from a pool of keys shared by every file, each line
 * is valid or one of the kinds of bad lines:
 *
 * | kind           | line                                  | outcome                               |
 * |----------------|---------------------------------------|---------------------------------------|
 * | missing amount | `K,c,2026-05-01,,EUR`                 | VALIDATE INVALID_AMOUNT               |
 * | overflow       | amount 10^10 … 10^11                  | MERGE 22003 (orders.amount (12,2))    |
 * | bad date       | `2026-02-30`                          | PARSE_ORDER_DATE, staged ERROR        |
 * | lower currency | `eur`                                 | VALIDATE INVALID_CURRENCY             |
 * | negative       | `-5.25`                               | VALIDATE INVALID_AMOUNT               |
 * | field count    | four fields                           | rejected, no stage row                |
 * | no key         | empty source_key                      | rejected, no stage row                |
 *
 * Every line has a customer_id of its own, so no two lines carry the same values: whether a
 * line changes its key's stage row never depends on where the staging batches fall. With
 * `echoRate`, a line is sometimes repeated verbatim a few lines later (an *echo*; its key is then
 * not drawn again in that file): the key's last line carries the values an earlier line of the
 * same load staged, and its stage row and error-log rows must name the echo's line, whichever
 * batches the two fell in (PostgreSQL migration 013).
 */
import { mulberry32 } from '../../src/bench/synthetic-orders.js';
import { ORDER_HEADER, type InputFile } from './expected-state.js';

export interface SharedKeyOptions {
  /** File names, in the order they are loaded (name order). */
  names: string[];
  linesPerFile: number;
  /** Size of the key pool every file draws from: fewer keys than lines means many repeats. */
  keys: number;
  seed: number;
  keyPrefix?: string;
  /** The first customer_id (rounds after the first pass the next free one: every line stays unique). */
  firstCustomer?: number;
  /** Share of bad lines (default 0.3). */
  badRate?: number;
  /** Share of lines echoed verbatim 1 to 40 lines later (default 0: none). */
  echoRate?: number;
}

export function sharedKeyFiles(options: SharedKeyOptions): { files: InputFile[]; nextCustomer: number } {
  const random = mulberry32(options.seed);
  const prefix = options.keyPrefix ?? 'SK';
  const badRate = options.badRate ?? 0.3;
  let customer = options.firstCustomer ?? 1;
  const files: InputFile[] = [];
  const echoRate = options.echoRate ?? 0;
  for (const name of options.names) {
    const lines = [ORDER_HEADER];
    // keys echoed in this file (drawn no more), and the echoes waiting for their line
    const echoed = new Set<string>();
    const echoes: Array<{ at: number; line: string }> = [];
    for (let i = 0; i < options.linesPerFile; i++) {
      for (const e of echoes.filter((x) => x.at === i)) lines.push(e.line);
      let key = `${prefix}-${String(Math.floor(random() * options.keys)).padStart(6, '0')}`;
      // an echoed key's last line in this file stays its echo
      while (echoed.has(key)) key = `${prefix}-${String(Math.floor(random() * options.keys)).padStart(6, '0')}`;
      const c = String(customer++);
      const month = String(1 + Math.floor(random() * 12)).padStart(2, '0');
      const day = String(1 + Math.floor(random() * 28)).padStart(2, '0');
      const date = `2026-${month}-${day}`;
      const amount = (Math.floor(random() * 10_000_000) / 100).toFixed(2);
      const currency = ['EUR', 'USD', 'JPY'][Math.floor(random() * 3)] ?? 'EUR';
      const r = random();
      const bad = r < badRate ? Math.floor((r / badRate) * 7) : -1;
      switch (bad) {
        case 0:
          lines.push(`${key},${c},${date},,${currency}`);
          break;
        case 1:
          lines.push(`${key},${c},${date},${10_000_000_000 + Math.floor(random() * 80_000_000_000)}.50,${currency}`);
          break;
        case 2:
          lines.push(`${key},${c},2026-02-30,${amount},${currency}`);
          break;
        case 3:
          lines.push(`${key},${c},${date},${amount},${currency.toLowerCase()}`);
          break;
        case 4:
          lines.push(`${key},${c},${date},-${amount},${currency}`);
          break;
        case 5:
          lines.push(`${key},${c},${date},${amount}`);
          break;
        case 6:
          lines.push(`,${c},${date},${amount},${currency}`);
          break;
        default:
          lines.push(`${key},${c},${date},${amount},${currency}`);
      }
      // rejected lines (no key, or a field short) are not echoed: they never reach the stage
      if (echoRate > 0 && bad !== 5 && bad !== 6 && random() < echoRate) {
        echoed.add(key);
        echoes.push({ at: Math.min(options.linesPerFile, i + 1 + Math.floor(random() * 40)), line: lines[lines.length - 1] ?? '' });
      }
    }
    for (const e of echoes.filter((x) => x.at >= options.linesPerFile)) lines.push(e.line);
    files.push({ name, text: `${lines.join('\n')}\n` });
  }
  return { files, nextCustomer: customer };
}
