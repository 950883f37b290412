/**
 * Rules of a site's own on the loader's tables (docs/operations.md, "Rules of your own"), for the
 * tests that compare the database with the files: a CHECK on order_stage that refuses some lines
 * while they are staged, and a trigger on orders that refuses some rows in the MERGE. Each is
 * said twice, as PostgreSQL DDL and as the predicate test/support/expected-state.ts applies
 * (SiteRules): the customer_id of every generated line is its own (shared-key-files.ts), so about
 * one line in 17 is refused while staging and one valid row in 19 in the MERGE.
 */
import { dbCode } from './engine-expect.js';
import type { OrderValues, SiteRules } from './expected-state.js';

const STAGE_DIVISOR = 17n;
const ORDERS_DIVISOR = 19n;

/** The DDL, PostgreSQL and PGlite; run after the migrations, before the first load. */
export const SITE_RULES_SQL: readonly string[] = [
  `ALTER TABLE order_stage ADD CONSTRAINT test_site_stage_rule CHECK (customer_id % ${STAGE_DIVISOR} <> 0)`,
  `CREATE FUNCTION test_site_orders_rule() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.customer_id % ${ORDERS_DIVISOR} = 0 THEN RAISE EXCEPTION 'the site''s rule refuses this order'; END IF;
     RETURN NEW;
   END $$`,
  'CREATE TRIGGER test_site_orders_rule BEFORE INSERT OR UPDATE ON orders FOR EACH ROW EXECUTE FUNCTION test_site_orders_rule()',
];

function divisible(values: OrderValues, by: bigint): boolean {
  // a CHECK passes a NULL
  return values.customerId !== null && BigInt(values.customerId) % by === 0n;
}

/**
 * What SITE_RULES_SQL refuses, and with which code: a check violation (23514, in the engine-neutral
 * vocabulary the file comparison reads codes in) and P0001, a trigger's RAISE EXCEPTION.
 */
export const SITE_RULES: SiteRules = {
  stage: { code: dbCode('check'), refuses: (v) => divisible(v, STAGE_DIVISOR) },
  orders: { code: 'P0001', refuses: (v) => divisible(v, ORDERS_DIVISOR) },
};
