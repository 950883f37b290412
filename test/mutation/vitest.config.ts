import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

/**
 * The tests StrykerJS runs against each mutant of the rule modules (stryker.config.mjs): the unit
 * tests of those modules and the Oracle recording tests (the pipeline's process and operations
 * over a recording connection). No database: a PGlite test costs about a second, and Stryker runs
 * every test that covers a mutant for that mutant. The database behaviour of these modules is
 * held by the integration suite and by the named mutants (test/mutants/named-mutants.ts).
 */
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: [
      'test/unit/{order-file,order-record,order-record-rules,order-record-edges,inputs,gzip-input,formula-guard,raw-line,attributes,staging-plan,outcome,process,operations,db-error,pg-row-level,pg-classify,oracle-binds,oracle-classify-codes,ports,repeated-keys,rejected-key,encoding-sniff,inbox-lock,file-digest,profile-routing,load-profile,fixed-reader,inputs-edges,gzip-members,routing-edges,attributes-edges,inbox-lock-unwritable}.test.ts',
      'test/oracle/*.recording.test.ts',
    ],
    // it replaces a module with vi.mock: not in a shared module registry (vitest.config.ts, MOCKING)
    exclude: ['test/oracle/connections.recording.test.ts'],
    globalSetup: ['test/mutation/global-setup.ts'],
    testTimeout: 60_000,
  },
});
