/**
 * The review page attacked: a web site that rebinds its name to 127.0.0.1 (DNS rebinding: the
 * browser then sends the site's Host to the page, reads it as same-origin, CSRF token included),
 * a download whose reader stalls, and requests that never stop, on an embedded folder whose
 * nightly load must still get it; a partner's key with a bidi control, which no markup carries.
 */
import { describe, expect, it, type onTestFinished as OnTestFinished } from 'vitest';
import { DatabaseBusyError } from '../../src/engine/folder-lock.js';
import { OrderLoader } from '../../src/loader.js';
import { reviewApp } from '../../src/serve/app.js';
import { folderSource } from '../../src/serve/source.js';
import { writeTestFile } from '../support/files.js';
import { memoryLogger } from '../support/memory-logger.js';
import { migratedPgliteDb } from '../support/pglite-folders.js';
import { reviewClient } from '../support/review-page.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

forEachTarget('review page against an adversary on $kind', () => {
  targetTest('a request naming another host (DNS rebinding) is refused; loopback names are served', async ({ db }) => {
    const { loader } = await db.open();
    const page = reviewClient(loader);
    // the URL a request arrives with names the host its Host header gave (@hono/node-server)
    const at = async (host: string, init?: RequestInit) => (await page.app.request(`http://${host}/`, init)).status;
    for (const host of ['evil.example', 'evil.example:8080', '127.0.0.1.evil.example']) expect(await at(host), host).toBe(421);
    const form = new URLSearchParams({ reason: 'r', confirm: 'yes' }).toString();
    const headers = { 'Content-Type': 'application/x-www-form-urlencoded' };
    expect((await page.app.request('http://evil.example/rejected/resubmit', { method: 'POST', body: form, headers })).status).toBe(421);
    for (const host of ['127.0.0.1:8080', 'localhost:8080', 'localhost', '[::1]:8080', '127.0.0.2']) expect(await at(host), host).toBe(200);
    // with an access token (a non-loopback --listen) the token is what guards: any name
    const tokened = reviewClient(loader, { accessToken: 'a-long-enough-access-token-123456' });
    const named = await tokened.app.request('http://review.example.com/', {
      headers: { Authorization: 'Bearer a-long-enough-access-token-123456' },
    });
    expect(named.status).toBe(200);
  });

  targetTest('a partner’s key with bidi and control characters is in no markup as such', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([writeTestFile('source_key,customer_id,order_date,amount,currency\nK-\u202eexe.\u200f\u001b,1,2026-01-05,-5,JPY\n')]);
    const page = reviewClient(loader);
    const list = await page.get('/rejected');
    expect(list.text).toContain('K-\\u{202e}exe.');
    expect(list.text).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u200e\u200f\u202a-\u202e\u2066-\u2069]/);
  });
});

describe('review page on a PGlite folder, while a load waits for it', () => {
  const seeded = async (onTestFinished: typeof OnTestFinished, rows: number) => {
    const { url } = await migratedPgliteDb({ onTestFinished });
    const logs = memoryLogger('warn');
    const open = (command: string, lockTimeoutMs: number) => OrderLoader.open({ db: url, logger: logs.logger, command, lockTimeoutMs });
    const seed = await open('load', 0);
    const lines = Array.from({ length: rows }, (_, i) => `K-${i},${i + 1},2026-01-05,-5,JPY,${'x'.repeat(60)}`);
    await seed.load([writeTestFile(`source_key,customer_id,order_date,amount,currency,note\n${lines.join('\n')}\n`)]);
    await seed.close();
    const source = folderSource(() => open('serve', 500));
    onTestFinished(() => source.close());
    return { app: reviewApp({ source, dbLabel: url, allowEdit: false, operator: 'o', logger: logs.logger }), open };
  };

  it('a download whose reader stalls does not keep the folder from a load', async ({ onTestFinished }) => {
    const { app, open } = await seeded(onTestFinished, 3000);
    const stalled = await app.request('/rejected.csv');
    expect(stalled.status).toBe(200);
    const reader = (stalled.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value); // one chunk, then nothing more is read for now
    onTestFinished(() => reader.cancel());
    const load = await open('load', 8000);
    await load.close();
    // the rest of the file can still be read once the load is done
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text.split('\n').filter((l) => l.startsWith('K-'))).toHaveLength(3000);
  });

  it('requests that never stop still let a waiting load have the folder', async ({ onTestFinished }) => {
    const { app, open } = await seeded(onTestFinished, 10);
    let stop = false;
    const statuses: number[] = [];
    const clicking = (async () => {
      for (let i = 0; i < 100; i++) {
        if (stop as boolean) break;
        statuses.push((await app.request('/rejected')).status);
        await sleep(100);
      }
    })();
    await sleep(500);
    try {
      const load = await open('load', 10_000);
      await load.close();
    } catch (error) {
      expect(error).not.toBeInstanceOf(DatabaseBusyError);
      throw error;
    } finally {
      stop = true;
      await clicking;
    }
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
  });
});
