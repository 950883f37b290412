/**
 * The review page's writes beyond one field: a row's attributes corrected (the same operation
 * and audit as `retry --set attributes.NAME=value`), a selection filtered by phase resubmitted,
 * and a correction refused by the optimistic check (two operators), which is no failed run.
 */
import { readFileSync, rmSync } from 'node:fs';
import { expect } from 'vitest';
import { parseCorrections } from '../../src/pipeline/corrections.js';
import { writeTestFile } from '../support/files.js';
import { formFields, listedStageIds, partnerProfile, reviewClient, TEST_CSRF, twoNewest } from '../support/review-page.js';
import { forEachTarget, targetTest } from '../support/target-test.js';

const SAMPLE = 'fixtures/orders-sample.csv';

const PROFILE = partnerProfile();

const PARTNER = writeTestFile(
  'Order No,Customer,Date,Total,Cur,Region,Note\nA-1,1,2026-01-05,-5,JPY,Kanto,"say ""hi"""\nA-2,2,2026-01-05,10,JPY,Kansai,\n',
  'partner.csv',
);

forEachTarget('review page edits on $kind', () => {
  targetTest('a row’s attributes corrected with a reason: audited as retry --set attributes.NAME=…, kept in orders', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([PARTNER], { profile: PROFILE });
    const page = reviewClient(loader, { operator: 'morning-operator' });
    const id = listedStageIds((await page.get('/rejected')).text)[0]!;
    const row = await page.get(`/row/${id}`);
    const form = formFields(row.text, `/row/${id}/resubmit`);
    expect(form['attribute.Region']).toBe('Kanto');
    expect(form['attribute.Note']).toBe('say "hi"');
    const done = await page.post(`/row/${id}/resubmit`, {
      ...form,
      amount: '5',
      'attribute.Region': 'Tohoku',
      'attribute.Note': '',
      reason: 'partner moved the order',
    });
    expect(done.status).toBe(200);
    expect(done.text).toMatch(/id="row-status">DONE</);
    const stored = await db.sql<{ attributes: string }>(`SELECT attributes::text AS attributes FROM orders WHERE source_key = 'A-1'`);
    expect(JSON.parse(stored[0]!.attributes)).toEqual({ Region: 'Tohoku' });
    const audit = await db.sql<{ old_values: string; new_values: string }>(
      `SELECT old_values, new_values FROM order_stage_audit WHERE stage_id = ${id}`,
    );
    expect(JSON.parse(audit[0]!.old_values)).toMatchObject({ amount: '-5.00', attributes: { Region: 'Kanto', Note: 'say "hi"' } });
    expect(JSON.parse(audit[0]!.new_values)).toMatchObject({ amount: '5', attributes: { Region: 'Tohoku', Note: null } });

    // the library's (and the CLI's) --set says the same
    expect(parseCorrections(['attributes.Region=Kinki', 'amount=3'])).toEqual({ amount: '3', attributes: { Region: 'Kinki' } });
  });

  targetTest('a selection filtered by phase is resubmitted: only the rows the filter lists', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([SAMPLE]);
    const page = reviewClient(loader);
    const list = await page.get('/rejected?phase=MERGE');
    expect(listedStageIds(list.text)).toHaveLength(1);
    const form = formFields(list.text, '/rejected/resubmit');
    expect(form.phase).toBe('MERGE');
    const done = await page.post('/rejected/resubmit', { ...form, reason: 'limit raised', confirm: 'yes' });
    expect(done.status).toBe(200);
    expect(done.text).toContain('Resubmitted 1 row(s), audited');
    const audited = await db.sql<{ source_key: string }>(`SELECT source_key FROM order_stage_audit WHERE reason = 'limit raised'`);
    expect(audited.map((a) => a.source_key)).toEqual(['SRC-103']);
    const byPhase = await page.post('/rejected/resubmit', { csrf: TEST_CSRF, phase: 'PARSE', reason: 'none', confirm: 'yes' });
    expect(byPhase.text).toContain('No ERROR row matched');
  });

  targetTest('a correction refused by the optimistic check is no failed run; the page says nothing was written', async ({ db }) => {
    const { loader } = await db.open();
    await loader.load([SAMPLE]);
    const page = reviewClient(loader);
    const [id103] = twoNewest((await page.get('/rejected')).text);
    const seen = formFields((await page.get(`/row/${id103}`)).text, `/row/${id103}/resubmit`);
    await page.post(`/row/${id103}/resubmit`, { ...seen, reason: 'first operator' });
    const second = await page.post(`/row/${id103}/resubmit`, { ...seen, amount: '300', reason: 'second operator' });
    expect(second.status).toBe(409);
    expect(second.text).toContain('Not resubmitted: nothing of this form was written');
    const runs = await db.sql<{ status: string; message: string | null }>(
      `SELECT status, message FROM load_run WHERE command = 'retry' ORDER BY run_id`,
    );
    expect(runs.map((r) => r.status)).toEqual(['COMPLETED', 'COMPLETED']);
    expect(runs[1]!.message).toMatch(/^refused: stage_id \d+ changed since/);
    expect((await page.get('/')).text).toContain('refused: stage_id');
  });

  targetTest('a parsed row’s line: read again from its file while it is there, else what the database holds, each said', async ({ db }) => {
    const { loader } = await db.open();
    const file = writeTestFile(readFileSync(SAMPLE), 'gone.csv');
    await loader.load([file]);
    const page = reviewClient(loader);
    const [id103, id102] = twoNewest((await page.get('/rejected')).text);
    const there = await page.get(`/row/${id102}`);
    expect(there.text).toContain('SRC-102,20,2026-11-01,,JPY');
    expect(there.text).toMatch(/read again from <bdi class="text">[^<]*gone\.csv<\/bdi\s*> line 3:/);
    rmSync(file);
    for (const [id, line] of [
      [id102, 'SRC-102,20,2026-11-01,,JPY'],
      [id103, 'SRC-103,30,2026-11-02,999999999999.99,JPY'],
    ] as const) {
      const gone = await page.get(`/row/${id}`);
      expect(gone.text).toContain(line);
      expect(gone.text).toContain('rebuilt from the staged fields');
    }
    expect((await page.get('/rejected')).text).toContain('rebuilt from the staged fields');
  });
});
