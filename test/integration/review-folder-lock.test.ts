/**
 * The review page on an embedded folder (pglite:<dir>): the folder is one process's at a time, so
 * the page takes its lock per burst of requests and never waits long for it. A load holding the
 * folder is said as "a load is running" (503) instead of a request that hangs, and the page lets
 * the folder go once idle, so a load waiting for it gets it.
 */
import { describe, expect, it } from 'vitest';
import { DatabaseBusyError } from '../../src/engine/folder-lock.js';
import { OrderLoader } from '../../src/loader.js';
import { reviewApp } from '../../src/serve/app.js';
import { folderSource } from '../../src/serve/source.js';
import { memoryLogger } from '../support/memory-logger.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('review page on a PGlite folder', () => {
  it('a load holding the folder: 503 "a load is running" at once; the page releases the folder when idle', async ({ onTestFinished }) => {
    const { url } = await migratedPgliteDb({ onTestFinished });
    const logs = memoryLogger('warn');
    const open = (command: string, lockTimeoutMs: number) => OrderLoader.open({ db: url, logger: logs.logger, command, lockTimeoutMs });
    const seed = await open('load', 0);
    await seed.load(['fixtures/orders-sample.csv']);

    const source = folderSource(() => open('serve', 200), 300);
    onTestFinished(() => source.close());
    const app = reviewApp({ source, dbLabel: url, allowEdit: false, operator: 'o', logger: logs.logger });
    // the "load" still holds the folder
    const started = Date.now();
    const busy = await app.request('/rejected');
    expect(busy.status).toBe(503);
    expect(await busy.text()).toContain('A load is running (load holds the database folder)');
    expect(Date.now() - started).toBeLessThan(5000);
    await seed.close();

    const page = await app.request('/rejected');
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('data-source-key="SRC-102"');
    // while the page holds it (a burst of requests), a load that does not wait is refused…
    await expect(open('load', 0)).rejects.toThrow(DatabaseBusyError);
    // …and once the page is idle the folder is free again
    await sleep(800);
    const after = await open('load', 0);
    await after.close();
  });
});
