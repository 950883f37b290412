/** The review page (src/serve/) over a test's loader, asked through Hono's app.request: no socket. */
import type { Hono } from 'hono';
import { parseProfileText, type LoadProfile } from '../../src/input/profile/load-profile.js';
import type { OrderLoader } from '../../src/loader.js';
import { reviewApp } from '../../src/serve/app.js';
import { sharedSource } from '../../src/serve/source.js';
import { memoryLogger, type MemoryLogger } from './memory-logger.js';

export const TEST_CSRF = 'test-csrf-token-0123456789abcdef';

export interface ReviewClient {
  app: Hono;
  logs: MemoryLogger;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; text: string; headers: Headers }>;
  post(path: string, form: Record<string, string>, headers?: Record<string, string>): Promise<{ status: number; text: string }>;
}

export function reviewClient(
  loader: OrderLoader,
  options: { allowEdit?: boolean; operator?: string; operatorHeader?: string; accessToken?: string } = {},
): ReviewClient {
  const logs = memoryLogger('info');
  const app = reviewApp({
    source: sharedSource(loader, false),
    dbLabel: loader.dbLabel,
    allowEdit: options.allowEdit ?? true,
    operator: options.operator ?? 'page-operator',
    operatorHeader: options.operatorHeader,
    accessToken: options.accessToken,
    logger: logs.logger,
    csrf: TEST_CSRF,
  });
  return {
    app,
    logs,
    async get(path, headers = {}) {
      const res = await app.request(path, { headers });
      return { status: res.status, text: await res.text(), headers: res.headers };
    },
    async post(path, form, headers = {}) {
      const res = await app.request(path, {
        method: 'POST',
        body: new URLSearchParams(form).toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
      });
      return { status: res.status, text: await res.text() };
    },
  };
}

/** The hidden and text inputs of the page's first form posting to `action`, by name (HTML entities decoded). */
export function formFields(html: string, action: string): Record<string, string> {
  const start = html.indexOf(`action="${action}"`);
  if (start === -1) throw new Error(`no form posting to ${action}`);
  const form = html.slice(start, html.indexOf('</form>', start));
  const fields: Record<string, string> = {};
  for (const [tag] of form.matchAll(/<input[^>]*>/g)) {
    const name = /name="([^"]+)"/.exec(tag)?.[1];
    if (name === undefined) continue;
    fields[name] = (/value="([^"]*)"/.exec(tag)?.[1] ?? '')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&');
  }
  return fields;
}

/** The stage_ids of the rejected rows' table, in page order. */
export function listedStageIds(html: string): number[] {
  return [...html.matchAll(/<tr data-stage-id="(\d+)"/g)].map((m) => Number(m[1]));
}

/** The `older »` link of a rejected rows page, or null on the last page. */
export function olderLink(html: string): string | null {
  const m = /<a rel="next" href="([^"]+)">/.exec(html);
  return m === null ? null : m[1]!.replace(/&amp;/g, '&');
}

/** The stage_ids of the two newest rejected rows (the seed sample: SRC-103, then SRC-102). */
export function twoNewest(html: string): [number, number] {
  const [a, b] = listedStageIds(html);
  if (a === undefined || b === undefined) throw new Error('fewer than two rejected rows listed');
  return [a, b];
}

/**
 * A file of partners' hostile lines: markup, a formula, a 1 MB line, control characters and bidi
 * controls, and a line with bytes that are not UTF-8 (0xff 0xfe).
 */
export function hostileFile(): Buffer {
  const lines = [
    '<script>alert(1)</script>,1,2026-01-05,100',
    '"><img src=x onerror=alert(2)>,1,2026-01-05,100',
    '=HYPERLINK("http://evil.example/"),1,2026-01-05,100',
    `K-BIG,1,2026-01-05,100,${'x'.repeat(1024 * 1024)}`,
    'K-ESC,\u001b[31mred\u0007,2026-01-05,100,JPY',
    'K-RTL\u202egnp.exe\u200f,1,2026-01-05,100',
  ];
  return Buffer.concat([
    Buffer.from(`source_key,customer_id,order_date,amount,currency\n${lines.join('\n')}\n`),
    Buffer.from('K-UTF,1,'),
    Buffer.from([0xff, 0xfe]),
    Buffer.from(',1,JPY\n'),
  ]);
}

/** A partner's profile that keeps the file's other columns as each row's attributes (`extra: keep`). */
export function partnerProfile(): LoadProfile {
  return parseProfileText(
    `version: 1
name: partner
columns:
  source_key: { column: "Order No" }
  customer_id: { column: "Customer" }
  order_date: { column: "Date" }
  amount: { column: "Total" }
  currency: { column: "Cur" }
extra: keep
`,
    'partner.yaml',
    'partner',
  );
}
