/**
 * The built-in format as a profile: what `order-loader` reads without `--profile` (a header
 * naming source_key,customer_id,order_date,amount,currency in any order, ',' or --delimiter,
 * dates YYYY-MM-DD, plain decimals). Without a profile the reader takes its own fast path
 * (src/input/order-file.ts, describeHeader and toItem; src/input/order-record.ts, the plain
 * record shortcut): a file read through BUILTIN_PROFILE gives the same rows
 * (test/integration/profiles.test.ts), the built-in path stays as fast as it was.
 */
import { canonicalJson, type LoadProfile } from './load-profile.js';
import { profileSchema } from './schema.js';
import { createHash } from 'node:crypto';

/** The profile hash recorded for a load of the built-in format (and read for runs recorded before profiles). */
export const BUILTIN_PROFILE_ID = 'builtin';

const spec = profileSchema.parse({
  version: 1,
  name: 'builtin',
  format: 'csv',
  encoding: 'utf-8',
  delimiter: ',',
  header: true,
  columns: {
    source_key: { column: 'source_key' },
    customer_id: { column: 'customer_id' },
    order_date: { column: 'order_date', date: 'YYYY-MM-DD' },
    amount: { column: 'amount' },
    currency: { column: 'currency' },
  },
});

/** The built-in format written as a profile (its documentation, and what the tests compare with). */
export const BUILTIN_PROFILE: LoadProfile = {
  name: 'builtin',
  sha256: createHash('sha256').update(canonicalJson(spec)).digest('hex'),
  spec,
};
