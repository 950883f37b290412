/**
 * The review page as a person uses it: a real headless Chromium (Debian's `chromium`, driven by
 * playwright-core over the DevTools protocol) against `order-loader serve`'s app on a real socket,
 * on PGlite and (with ORDER_LOADER_TEST_PG) PostgreSQL. Screenshots go to
 * ORDER_LOADER_SCREENSHOTS (default: test-results/screenshots). Without a browser the tests are
 * skipped and say how to install one (docs/testing.md).
 */
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import type { OrderLoader } from '../../src/loader.js';
import { reviewApp } from '../../src/serve/app.js';
import { listen, type RunningServer } from '../../src/serve/server.js';
import { sharedSource } from '../../src/serve/source.js';
import { writeTestFile } from '../support/files.js';
import { hostileFile, partnerProfile } from '../support/review-page.js';
import { memoryLogger } from '../support/memory-logger.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

const CHROMIUM = process.env.ORDER_LOADER_CHROMIUM ?? '/usr/bin/chromium';
const SHOTS = process.env.ORDER_LOADER_SCREENSHOTS ?? 'test-results/screenshots';
const missing = existsSync(CHROMIUM)
  ? null
  : `no Chromium at ${CHROMIUM}: apt-get install -y chromium (or set ORDER_LOADER_CHROMIUM), then npm run test:browser`;
if (missing !== null) console.warn(`[browser] SKIPPED: ${missing}`);

let browser: Browser | undefined;
beforeAll(async () => {
  if (missing !== null) return;
  mkdirSync(SHOTS, { recursive: true });
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
}, 120_000);
afterAll(async () => {
  await browser?.close();
});

async function serve(loader: OrderLoader, allowEdit = true): Promise<RunningServer> {
  const app = reviewApp({
    source: sharedSource(loader, false),
    dbLabel: loader.dbLabel,
    allowEdit,
    operator: 'morning-operator',
    logger: memoryLogger('warn').logger,
  });
  return listen(app, '127.0.0.1', 0);
}

/** A page that fails the test on any dialog (a script that ran) and on any request outside the server. */
async function newPage(...servers: RunningServer[]): Promise<Page> {
  if (browser === undefined) throw new Error('no browser');
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, acceptDownloads: true });
  page.on('dialog', (d) => {
    throw new Error(`a dialog opened: ${d.message()}`);
  });
  await page.route('**/*', (route) => (servers.some((s) => route.request().url().startsWith(s.url)) ? route.continue() : route.abort()));
  return page;
}

describe.skipIf(missing !== null)('review page in Chromium', () => {
  forEachTarget('on $kind', (target) => {
    targetTest(
      'the seed sample: find SRC-102 and SRC-103 with their lines, correct SRC-102, see it DONE and audited, download the CSV and load it back',
      async ({ db }) => {
        const { loader } = await db.open();
        await loader.load(['fixtures/orders-sample.csv']);
        const server = await serve(loader);
        const page = await newPage(server);
        try {
          await page.goto(server.url);
          await expect.poll(() => page.locator('td[data-status="ERROR"]').textContent()).toBe('2');
          await page.getByRole('link', { name: 'Rejected rows' }).click();
          const row102 = page.locator('tr[data-source-key="SRC-102"]');
          const row103 = page.locator('tr[data-source-key="SRC-103"]');
          expect(await row102.locator('td.raw').textContent()).toContain('SRC-102,20,2026-11-01,,JPY');
          expect(await row103.locator('td.raw').textContent()).toContain('SRC-103,30,2026-11-02,999999999999.99,JPY');
          expect(await row102.textContent()).toContain('INVALID_AMOUNT');
          await page.screenshot({ path: join(SHOTS, `rejected-${target.kind}.png`), fullPage: true });

          await row102.getByRole('link').first().click();
          await page.getByLabel('amount').fill('1500');
          await page.getByLabel(/reason/).fill('partner confirmed 1500 by mail');
          await page.screenshot({ path: join(SHOTS, `row-edit-${target.kind}.png`), fullPage: true });
          await page.getByRole('button', { name: 'Resubmit' }).click();
          await expect.poll(() => page.locator('#row-status').textContent()).toBe('DONE');
          expect(await page.locator('#row-attempts').textContent()).toBe('2');
          expect(await page.locator('p.notice').textContent()).toContain('Resubmitted 1 row(s), audited; processed at once: 1 DONE');
          const audit = page.locator('table.audit tr.audit');
          expect(await audit.count()).toBe(1);
          expect(await audit.textContent()).toContain('partner confirmed 1500 by mail');
          expect(await audit.textContent()).toContain('morning-operator');
          await page.screenshot({ path: join(SHOTS, `row-done-${target.kind}.png`), fullPage: true });

          await page.getByRole('link', { name: 'Rejected rows' }).click();
          const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /Download these/ }).click()]);
          const csvPath = join(SHOTS, `errors-${target.kind}.csv`);
          await download.saveAs(csvPath);
          const csv = readFileSync(csvPath, 'utf8');
          expect(csv.split('\n')[1]).toMatch(/^SRC-103,30,2026-11-02,999999999999\.99,JPY,22003,/);
          const back = await loader.load([writeTestFile(csv.replace('999999999999.99', '300'))]);
          expect(back.exitCode).toBe(0);
          await page.goto(server.url);
          await expect.poll(() => page.locator('td[data-status="ERROR"]').textContent()).toBe('0');
          expect(await page.locator('td[data-status="DONE"]').textContent()).toBe('4');
        } finally {
          await page.close();
          await server.close();
        }
      },
    );

    targetTest('hostile raw lines render as text: no script runs, no element is made of them', async ({ db }) => {
      const { loader } = await db.open();
      await loader.load([writeTestFile(hostileFile())]);
      const server = await serve(loader);
      const page = await newPage(server);
      try {
        await page.goto(`${server.url}rejected`);
        const raw = [await page.locator('table.rejected').textContent(), await page.locator('table.lines').textContent()].join('\n');
        expect(raw).toContain('<script>alert(1)</script>');
        expect(raw).toContain('"><img src=x onerror=alert(2)>');
        expect(raw).toContain('=HYPERLINK("http://evil.example/")');
        expect(raw).toContain('\\x1b[31mred\\x07');
        expect(raw).toContain('K-RTL\\u{202e}gnp.exe\\u{200f}');
        expect(raw).toContain('\uFFFD');
        expect(raw).toMatch(/K-BIG,1,2026-01-05,100,x+ … [\d,]+ more characters/);
        expect(await page.locator('script').count()).toBe(0);
        expect(await page.locator('img').count()).toBe(0);
        await page.screenshot({ path: join(SHOTS, `hostile-${target.kind}.png`), fullPage: true });
        for (const link of await page.locator('table.rejected a').all()) {
          const href = await link.getAttribute('href');
          await page.goto(new URL(href!, server.url).toString());
          expect(await page.locator('script, img').count()).toBe(0);
        }
      } finally {
        await page.close();
        await server.close();
      }
    });

    targetTest('an edit without --allow-edit, or without the CSRF token, is refused and changes nothing', async ({ db }) => {
      const { loader } = await db.open();
      await loader.load(['fixtures/orders-sample.csv']);
      const readOnly = await serve(loader, false);
      const editing = await serve(loader, true);
      const page = await newPage(readOnly, editing);
      try {
        await page.goto(`${readOnly.url}rejected`);
        const href = (await page.locator('tr[data-source-key="SRC-102"] a').first().getAttribute('href'))!;
        await page.goto(new URL(href, readOnly.url).toString());
        expect(await page.locator('form.edit').count()).toBe(0);
        const form = { amount: '1500', was_amount: '', reason: 'r', seen_attempts: '1', seen_updated: new Date().toISOString() };
        const refused = await page.request.post(new URL(`${href}/resubmit`, readOnly.url).toString(), { form });
        expect(refused.status()).toBe(403);
        // the editing server, but a form without its token (another site's, say)
        const forged = await page.request.post(new URL(`${href}/resubmit`, editing.url).toString(), { form: { ...form, csrf: 'guessed' } });
        expect(forged.status()).toBe(403);
        await page.goto(new URL(href, editing.url).toString());
        expect(await page.locator('#row-status').textContent()).toBe('ERROR');
        expect(await page.locator('table.audit tr.audit').count()).toBe(0);
      } finally {
        await page.close();
        await readOnly.close();
        await editing.close();
      }
    });

    targetTest(
      'an attribute corrected in the form; a second operator’s stale form refused in plain words; a phase-filtered selection resubmitted; a gone file’s row shown from its staged fields',
      async ({ db }) => {
        const { loader } = await db.open();
        const profile = partnerProfile();
        const partner = writeTestFile('Order No,Customer,Date,Total,Cur,Region\nA-1,1,2026-01-05,-5,JPY,Kanto\n', 'partner.csv');
        await loader.load([partner], { profile });
        const sample = writeTestFile(readFileSync('fixtures/orders-sample.csv'), 'sample.csv');
        await loader.load([sample]);
        rmSync(sample);
        const server = await serve(loader);
        const first = await newPage(server);
        const second = await newPage(server);
        try {
          await first.goto(`${server.url}rejected`);
          const href = (await first.locator('tr[data-source-key="A-1"] a').first().getAttribute('href'))!;
          await first.goto(new URL(href, server.url).toString());
          await second.goto(new URL(href, server.url).toString());
          await first.getByLabel('amount').fill('5');
          await first.getByLabel(/Region/).fill('Tohoku');
          await first.getByLabel(/reason/).fill('partner moved the order');
          await first.getByRole('button', { name: 'Resubmit' }).click();
          await expect.poll(() => first.locator('#row-status').textContent()).toBe('DONE');
          expect(await first.locator('table.audit tr.audit').textContent()).toContain('Tohoku');
          await second.getByLabel('amount').fill('6');
          await second.getByLabel(/reason/).fill('second operator');
          await second.getByRole('button', { name: 'Resubmit' }).click();
          await expect.poll(() => second.locator('p.notice').textContent()).toContain('Not resubmitted: nothing of this form was written');
          expect(await second.locator('#row-status').textContent()).toBe('DONE');
          await second.screenshot({ path: join(SHOTS, `row-refused-${target.kind}.png`), fullPage: true });

          // the sample's file is gone: its parsed rows show their staged fields, said
          await first.goto(`${server.url}rejected?phase=MERGE`);
          expect(await first.locator('tr[data-source-key="SRC-103"] td.raw').textContent()).toMatch(
            /SRC-103,30,2026-11-02,999999999999\.99,JPY\s+\(rebuilt from the staged fields/,
          );
          await first.getByLabel(/reason \(recorded/).fill('limit raised');
          await first.getByLabel(/resubmit every ERROR row/).check();
          await first.getByRole('button', { name: 'Resubmit selection' }).click();
          await expect.poll(() => first.locator('p.notice').textContent()).toContain('Resubmitted 1 row(s), audited');
          await first.goto(`${server.url}rejected`);
          expect(await first.locator('tr[data-source-key="SRC-102"]').count()).toBe(1);
          expect(await first.locator('tr[data-source-key="SRC-103"] td').nth(10).textContent()).toBe('MERGE');
        } finally {
          await first.close();
          await second.close();
          await server.close();
        }
      },
    );
  });
});
