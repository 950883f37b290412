/**
 * Synthetic orders for benchmarks (`order-loader bench`, bench/): N rows in the order-file format `source_key,customer_id,order_date,amount,currency`.
 *
 * - deterministic for a given seed (mulberry32);
 * - `missingRate` (default 1%) of the rows have no amount (a VALIDATE failure);
 * - `overflowRate` (default 0.1%) of the rows have an amount in 99999999999.99 … 999999999999.99:
 *   it fits order_stage.amount numeric(18,2) but overflows orders.amount numeric(12,2), so the
 *   database refuses the row at MERGE time (SQLSTATE 22003);
 * - streamed to the file with backpressure: memory stays bounded whatever N is.
 *
 * The random draws are the same whatever the rates, so a file generated with overflowRate 0 is
 * the same file with only the overflow rows replaced by normal amounts (the failure-isolation
 * comparison of bench/e2e.ts relies on this).
 *
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export interface GenerateOptions {
  rows: number;
  seed?: number;
  missingRate?: number;
  overflowRate?: number;
}

export interface GenerateResult {
  rows: number;
  missing: number;
  overflow: number;
  bytes: number;
}

/** Upper bound (exclusive) of an amount that fits orders.amount numeric(12,2). */
export const ORDERS_AMOUNT_LIMIT = 10_000_000_000;

export const HEADER = 'source_key,customer_id,order_date,amount,currency';
const CURRENCIES = ['JPY', 'USD', 'EUR', 'GBP', 'CNY', 'KRW', 'AUD', 'CAD'];
const DAY_MS = 86_400_000;
const FIRST_DAY = Date.UTC(2020, 0, 1);

/** A small deterministic PRNG (mulberry32): the same seed gives the same file. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function cents(n: number): string {
  const whole = Math.floor(n / 100);
  const frac = n % 100;
  return `${whole}.${frac < 10 ? '0' : ''}${frac}`;
}

/** One synthetic order: its number (1 …) and its values as the built-in format writes them ('' for a missing amount). */
export interface SyntheticOrder {
  n: number;
  customerId: string;
  orderDate: string;
  amount: string;
  currency: string;
}

/** The orders, lazily; returns the counts (bytes 0: no file). */
export function* syntheticOrders(options: GenerateOptions): Generator<SyntheticOrder, GenerateResult> {
  const rng = mulberry32(options.seed ?? 42);
  const missingRate = options.missingRate ?? 0.01;
  const overflowRate = options.overflowRate ?? 0.001;
  let missing = 0;
  let overflow = 0;
  for (let i = 1; i <= options.rows; i++) {
    // always the same six draws per row, whatever the rates
    const rCustomer = rng();
    const rDay = rng();
    const rAmount = rng();
    const rCurrency = rng();
    const rKind = rng();
    const rBig = rng();
    const customer = 1 + Math.floor(rCustomer * 500_000);
    const day = new Date(FIRST_DAY + Math.floor(rDay * 2000) * DAY_MS).toISOString().slice(0, 10);
    let amount: string;
    if (rKind < missingRate) {
      amount = '';
      missing++;
    } else if (rKind >= 1 - overflowRate) {
      // 99999999999.99 … 999999999999.99: digits 11-12 before the point
      amount = cents(9_999_999_999_999 + Math.floor(rBig * 90_000_000_000_000));
      overflow++;
    } else {
      amount = cents(1 + Math.floor(rAmount * 10_000_000)); // 0.01 … 100000.00
    }
    const currency = CURRENCIES[Math.floor(rCurrency * CURRENCIES.length)] ?? 'JPY';
    yield { n: i, customerId: String(customer), orderDate: day, amount, currency };
  }
  return { rows: options.rows, missing, overflow, bytes: 0 };
}

/** The rows, as lines (with the header first), lazily. */
export function* orderLines(options: GenerateOptions): Generator<string, GenerateResult> {
  let bytes = 0;
  const header = `${HEADER}\n`;
  bytes += header.length;
  yield header;
  const orders = syntheticOrders(options);
  for (;;) {
    const next = orders.next();
    if (next.done === true) return { ...next.value, bytes };
    const o = next.value;
    const line = `SRC-${String(o.n).padStart(9, '0')},${o.customerId},${o.orderDate},${o.amount},${o.currency}\n`;
    bytes += line.length;
    yield line;
  }
}

/**
 * Write lines to a file, honouring backpressure (bounded memory); `encode` turns the text into the
 * file's bytes (default UTF-8). Returns what the lines' generator returns.
 */
export async function writeLines<R>(path: string, lines: Generator<string, R>, encode?: (text: string) => Buffer): Promise<R> {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  let buffer = '';
  let result: R | undefined;
  const write = async (text: string): Promise<void> => {
    if (!out.write(encode === undefined ? text : encode(text))) await once(out, 'drain');
  };
  try {
    for (;;) {
      const next = lines.next();
      if (next.done === true) {
        result = next.value;
        break;
      }
      buffer += next.value;
      if (buffer.length >= 1 << 16) {
        await write(buffer);
        buffer = '';
      }
    }
    if (buffer !== '') await write(buffer);
    out.end();
    await once(out, 'finish');
  } catch (error) {
    out.destroy();
    throw error;
  }
  return result;
}

/** Write the file, honouring backpressure (bounded memory). */
export function generateOrderFile(path: string, options: GenerateOptions): Promise<GenerateResult> {
  return writeLines(path, orderLines(options));
}
