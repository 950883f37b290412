/**
 * ORDER_LOADER_TEST_PG: the admin URL of a PostgreSQL server the tests may create databases on.
 * Unset or empty means none (`ORDER_LOADER_TEST_PG= npm test` runs PGlite only).
 */
const value = process.env.ORDER_LOADER_TEST_PG;
export const TEST_PG_URL: string | null = value === undefined || value === '' ? null : value;
