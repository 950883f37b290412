import { basename } from 'node:path';
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import { writeTestFile } from '../support/files.js';
import { formFields, hostileFile, listedStageIds, olderLink, reviewClient, TEST_CSRF, twoNewest } from '../support/review-page.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

const SAMPLE = 'fixtures/orders-sample.csv';

forEachTarget('review page (serve) on $kind', () => {
  targetTest(
    'the seed sample: SRC-102 and SRC-103 with their lines; SRC-102 corrected → DONE, attempt 2, audited; the CSV fixed and loaded back',
    async ({ db }) => {
      const { loader } = await db.open();
      await loader.load([SAMPLE]);
      const page = reviewClient(loader, { operator: 'morning-operator' });

      const list = await page.get('/rejected');
      expect(list.status).toBe(200);
      expect(list.text).toContain('data-source-key="SRC-102"');
      expect(list.text).toContain('data-source-key="SRC-103"');
      // the lines as the file has them (the database keeps only rejected lines' text)
      expect(list.text).toContain('SRC-102,20,2026-11-01,,JPY');
      expect(list.text).toContain('SRC-103,30,2026-11-02,999999999999.99,JPY');
      const [id103, id102] = twoNewest(list.text);

      const row = await page.get(`/row/${id102}`);
      const form = formFields(row.text, `/row/${id102}/resubmit`);
      expect(form.csrf).toBe(TEST_CSRF);
      const done = await page.post(`/row/${id102}/resubmit`, { ...form, amount: '1500', reason: 'partner sent the amount by mail' });
      expect(done.status).toBe(200);
      expect(done.text).toContain('Resubmitted 1 row(s), audited; processed at once: 1 DONE');
      expect(done.text).toMatch(/id="row-status">DONE</);
      expect(done.text).toMatch(/id="row-attempts" class="num">2</);
      expect(done.text).toContain('partner sent the amount by mail');
      expect(done.text).toContain('morning-operator');
      const audit = await db.sql<{ operator: string; reason: string; new_values: string }>(
        `SELECT operator, reason, new_values FROM order_stage_audit WHERE stage_id = ${id102}`,
      );
      expect(audit.map((a) => [a.operator, a.reason])).toEqual([['morning-operator', 'partner sent the amount by mail']]);
      expect(audit[0]?.new_values).toContain('"amount":"1500"');

      // the errors CSV of the page: SRC-103 only now; its amount fixed and loaded back
      const csv = await page.get('/rejected.csv');
      expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
      const records = parse<Record<string, string>>(csv.text, { columns: true });
      expect(records.map((r) => r.source_key)).toEqual(['SRC-103']);
      const back = await loader.load([writeTestFile(csv.text.replace('999999999999.99', '300'))]);
      expect(back.exitCode).toBe(0);
      const rows = await db.sql<{ source_key: string; process_status: string; attempt_count: string | number }>(
        `SELECT source_key, process_status, attempt_count FROM order_stage WHERE source_key IN ('SRC-102', 'SRC-103') ORDER BY source_key`,
      );
      expect(rows.map((r) => [r.source_key, r.process_status, Number(r.attempt_count)])).toEqual([
        ['SRC-102', 'DONE', 2],
        ['SRC-103', 'DONE', 2],
      ]);
      expect(id103).toBeGreaterThan(id102);
    },
  );

  targetTest('refused: a POST without the CSRF token, any POST without --allow-edit; nothing changes; GET never writes', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([SAMPLE]);
    const page = reviewClient(loader);
    const [, id102] = twoNewest((await page.get('/rejected')).text);
    const form = formFields((await page.get(`/row/${id102}`)).text, `/row/${id102}/resubmit`);
    const edit: Record<string, string> = { ...form, amount: '1500', reason: 'r' };
    const withoutToken = Object.fromEntries(Object.entries(edit).filter(([name]) => name !== 'csrf'));
    expect((await page.post(`/row/${id102}/resubmit`, withoutToken)).status).toBe(403);
    expect((await page.post(`/row/${id102}/resubmit`, { ...edit, csrf: 'forged' })).status).toBe(403);
    expect((await page.post('/rejected/resubmit', { reason: 'r', confirm: 'yes' })).status).toBe(403);
    const readOnly = reviewClient(loader, { allowEdit: false });
    expect((await readOnly.post(`/row/${id102}/resubmit`, edit)).status).toBe(403);
    expect((await readOnly.get(`/row/${id102}`)).text).not.toContain('/resubmit"');
    expect((await page.get(`/row/${id102}/resubmit?amount=1500&reason=r&csrf=${TEST_CSRF}`)).status).toBe(404);
    const after = await db.sql<{ process_status: string; n: string | number }>(
      `SELECT process_status, (SELECT count(*) FROM order_stage_audit) AS n FROM order_stage WHERE stage_id = ${id102}`,
    );
    expect(after.map((r) => [r.process_status, Number(r.n)])).toEqual([['ERROR', 0]]);
  });

  targetTest('two operators correct the same row: the second is told, nothing is lost or doubled', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([SAMPLE]);
    const page = reviewClient(loader);
    const [id103] = twoNewest((await page.get('/rejected')).text);
    const seenByBoth = formFields((await page.get(`/row/${id103}`)).text, `/row/${id103}/resubmit`);
    // the first keeps the overflowing amount (it fails again: ERROR, attempt 2); the second's form is stale
    const first = await page.post(`/row/${id103}/resubmit`, { ...seenByBoth, reason: 'first operator' });
    expect(first.text).toContain('Resubmitted 1 row(s)');
    const second = await page.post(`/row/${id103}/resubmit`, { ...seenByBoth, amount: '300', reason: 'second operator' });
    expect(second.status).toBe(409);
    expect(second.text).toContain('changed since you opened it');
    const audit = await db.sql<{ reason: string }>(`SELECT reason FROM order_stage_audit WHERE stage_id = ${id103}`);
    expect(audit.map((a) => a.reason)).toEqual(['first operator']);
    // reloaded, the second operator's correction goes through
    const fresh = formFields((await page.get(`/row/${id103}`)).text, `/row/${id103}/resubmit`);
    const third = await page.post(`/row/${id103}/resubmit`, { ...fresh, amount: '300', reason: 'second operator' });
    expect(third.text).toMatch(/id="row-status">DONE</);
    expect(third.text).toMatch(/id="row-attempts" class="num">3</);
  });

  targetTest(
    'keyset pages newest first, filters by code, phase and file; a filtered selection resubmitted with one reason',
    async ({ db }) => {
      const { loader } = await db.open();
      const lines = Array.from({ length: 230 }, (_, i) => `K-${i},${i + 1},2026-01-05,${i % 2 === 0 ? '-5' : '1e5'},JPY`);
      const file = writeTestFile(`source_key,customer_id,order_date,amount,currency\n${lines.join('\n')}\n`, 'keyset.csv');
      await loader.load([file]);
      const page = reviewClient(loader);
      const seen: number[] = [];
      for (let path: string | null = '/rejected'; path !== null;) {
        const res = await page.get(path);
        const ids = listedStageIds(res.text);
        expect(ids.length).toBeLessThanOrEqual(100);
        seen.push(...ids);
        path = olderLink(res.text);
      }
      expect(seen).toHaveLength(230);
      expect(seen).toEqual([...seen].sort((a, b) => b - a));

      const invalid = listedStageIds((await page.get('/rejected?code=INVALID_AMOUNT&phase=VALIDATE')).text);
      expect(invalid).toHaveLength(100);
      expect(listedStageIds((await page.get('/rejected?phase=MERGE')).text)).toEqual([]);
      expect(listedStageIds((await page.get(`/rejected?file=${basename(file)}&code=PARSE_AMOUNT`)).text)).toHaveLength(100);
      expect(listedStageIds((await page.get('/rejected?file=no-such.csv')).text)).toEqual([]);
      expect((await page.get('/rejected?phase=BOGUS')).status).toBe(400);

      const bulk = await page.post('/rejected/resubmit', { csrf: TEST_CSRF, code: 'INVALID_AMOUNT', reason: 'rule fixed', confirm: 'yes' });
      expect(bulk.text).toContain('Resubmitted 115 row(s), audited');
      const audit = await db.sql<{ n: string | number }>(`SELECT count(*) AS n FROM order_stage_audit WHERE reason = 'rule fixed'`);
      expect(Number(audit[0]!.n)).toBe(115);
    },
  );

  targetTest('partners’ hostile lines render as text; the policy allows no script', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([writeTestFile(hostileFile())]);
    const page = reviewClient(loader);
    const csv = await page.get('/rejected.csv');
    const records = parse<Record<string, string>>(csv.text, { columns: true, relax_column_count: true });
    expect(records.length).toBeGreaterThanOrEqual(6);
    const list = await page.get('/rejected');
    expect(list.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(list.headers.get('content-security-policy')).not.toContain('script-src');
    for (const path of ['/', '/rejected', ...listedStageIds(list.text).map((id) => `/row/${id}`)]) {
      const res = await page.get(path);
      expect(res.text, path).not.toMatch(/<script|<img/i);
      expect(res.text, path).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u202e]/);
      expect(res.text.length, path).toBeLessThan(200_000);
    }
  });
});

forEachTarget('review page access on $kind', () => {
  targetTest(
    'with an access token: refused without it; a Bearer header, or ?token= once (then an HttpOnly cookie), lets in',
    async ({ db }) => {
      const { loader } = await db.open();
      const token = 'a-long-enough-access-token-123456';
      const page = reviewClient(loader, { accessToken: token });
      expect((await page.get('/')).status).toBe(403);
      expect((await page.get('/', { Authorization: 'Bearer wrong-token-of-the-same-size-xx' })).status).toBe(403);
      expect((await page.get('/', { Authorization: `Bearer ${token}` })).status).toBe(200);
      const first = await page.get(`/rejected?token=${token}`);
      expect(first.status).toBe(303);
      expect(first.headers.get('location')).toBe('/rejected');
      const cookie = first.headers.get('set-cookie') ?? '';
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
      expect((await page.get('/rejected', { Cookie: cookie.split(';')[0]! })).status).toBe(200);
    },
  );

  targetTest(
    '--operator-header: the operator is the header the proxy sets, never a form field; without it an edit is refused',
    async ({ db }) => {
      const { loader } = await db.open();
      await loader.load([SAMPLE]);
      const page = reviewClient(loader, { operatorHeader: 'X-Remote-User' });
      const [, id102] = twoNewest((await page.get('/rejected')).text);
      const form = formFields((await page.get(`/row/${id102}`)).text, `/row/${id102}/resubmit`);
      const edit = { ...form, amount: '1500', reason: 'r', operator: 'forged-in-form' };
      const refused = await page.post(`/row/${id102}/resubmit`, edit);
      expect(refused.status).toBe(400);
      expect(refused.text).toContain('no operator: the request has no X-Remote-User header');
      const done = await page.post(`/row/${id102}/resubmit`, edit, { 'X-Remote-User': 'alice' });
      expect(done.text).toMatch(/id="row-status">DONE</);
      const audit = await db.sql<{ operator: string }>(`SELECT operator FROM order_stage_audit WHERE stage_id = ${id102}`);
      expect(audit).toEqual([{ operator: 'alice' }]);
    },
  );
});
