/**
 * `order-loader serve` as the CLI starts it (startReview): a real listening server on a server
 * database whose --db URL holds a password. No page, header or log line shows it.
 */
import { expect } from 'vitest';
import { startReview } from '../../src/serve/index.js';
import { memoryLogger } from '../support/memory-logger.js';
import { forEachTarget, targetTest } from '../support/target-test.js';
import { testTargets } from '../support/databases.js';

const SECRET = 'S3cret-Pw-never-shown';

forEachTarget(
  'serve on $kind',
  () => {
    targetTest('listens on loopback; the password of --db is in no page, header or log line', async ({ db }) => {
      const url = new URL(db.url!);
      url.password = SECRET;
      const logs = memoryLogger('debug');
      const server = await startReview({
        db: url.toString(),
        logger: logs.logger,
        listen: '127.0.0.1:0',
        lockTimeoutMs: 0,
        allowEdit: true,
      });
      try {
        expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
        for (const path of ['', 'rejected', 'rejected.csv', 'row/1', 'nowhere']) {
          const res = await fetch(server.url + path);
          const text = await res.text();
          expect(text, path).not.toContain(SECRET);
          expect(JSON.stringify([...res.headers]), path).not.toContain(SECRET);
        }
        const home = await (await fetch(server.url)).text();
        expect(home).toContain('***');
      } finally {
        await server.close();
      }
      expect(logs.text()).not.toContain(SECRET);
    });
  },
  testTargets().filter((t) => t.kind === 'postgres'),
);
