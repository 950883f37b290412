/** ORDER_LOADER_SETTLE=off: a `load` on PostgreSQL settles no row while staging (the way back, and the benchmark's "before"). */
import { expect, it } from 'vitest';
import { settleWhileStagingEnabled } from '../../src/engine/postgres/index.js';
import { pgDriver } from '../../src/engine/postgres/driver.js';
import type { PgConnector } from '../../src/engine/postgres/session.js';

it('settling while staging is on unless ORDER_LOADER_SETTLE is off, and the driver says so in its capabilities', () => {
  expect(settleWhileStagingEnabled({})).toBe(true);
  expect(settleWhileStagingEnabled({ ORDER_LOADER_SETTLE: 'on' })).toBe(true);
  expect(settleWhileStagingEnabled({ ORDER_LOADER_SETTLE: 'off' })).toBe(false);
  const connector = { kind: 'postgres', concurrent: true } as unknown as PgConnector;
  expect(pgDriver(connector).capabilities.settlesWhileStaging).toBe(true);
  expect(pgDriver(connector, false).capabilities.settlesWhileStaging).toBe(false);
});
