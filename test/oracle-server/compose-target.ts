/**
 * The Oracle database of compose.yaml, as `npm run test:oracle` reaches it when
 * ORDER_LOADER_TEST_ORACLE is not set. test/unit/workflow.test.ts checks that compose.yaml
 * and .github/workflows/ci.yml agree with these values.
 */
export const COMPOSE_ORACLE = {
  /** The --db value: APP_USER in FREEPDB1, on the port compose.yaml publishes. */
  url: 'oracle://loader@127.0.0.1:1521/FREEPDB1',
  user: 'loader',
  /** APP_USER_PASSWORD of a throw-away local container: it protects nothing. */
  password: 'loader-test-only',
} as const;
