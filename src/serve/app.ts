/**
 * The review page's routes (Hono). GET reads, POST writes and only with --allow-edit and the
 * page's CSRF token; every response carries the security headers; every database call goes
 * through the LoaderSource (on an embedded folder: its lock, per burst of requests).
 */
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import type { Logger } from 'pino';
import { ZodError } from 'zod';
import { writeErrorsCsv } from '../cli/errors-csv.js';
import { DatabaseBusyError } from '../engine/folder-lock.js';
import { UserError } from '../errors.js';
import type { OrderLoader } from '../loader.js';
import { describeDbError } from '../pipeline/db-error.js';
import type { ErrorExportRow } from '../pipeline/errors-export.js';
import { heldAdvice } from '../pipeline/control-held-rows.js';
import { RowChangedError } from '../pipeline/operations.js';
import { csvFile } from './csv-file.js';
import { linesFromFiles } from './file-lines.js';
import { resubmitRow, resubmitSelection, type ResubmitResult } from './actions.js';
import { knownLoads, parseFilter, selectedLoadIds, type ReviewFilter } from './filters.js';
import { html, type Html } from './html.js';
import { notice, page, type Frame, type Notice } from './layout.js';
import { overviewBody } from './pages/overview.js';
import { rejectedBody, rejectedLinesBody } from './pages/rejected.js';
import { rowBody } from './pages/row.js';
import { ACCESS_COOKIE, hostOf, isLoopback, newToken, presentedToken, sameSecret, SECURITY_HEADERS } from './security.js';
import type { LoaderSource } from './source.js';
import { PAGE_CSS } from './style.js';

export interface ReviewAppOptions {
  source: LoaderSource;
  /** The database as the header shows it (its password masked: OrderLoader.dbLabel). */
  dbLabel: string;
  allowEdit: boolean;
  /** Who is recorded in the audit (--operator); with operatorHeader, the request header that names them instead. */
  operator: string;
  operatorHeader?: string | undefined;
  /** Every request must present it (--token-file). */
  accessToken?: string | undefined;
  logger: Logger;
  /** The CSRF token of this server's forms (a new one per server unless given). */
  csrf?: string | undefined;
}

const stageIdOf = (c: Context): number => {
  const id = Number(c.req.param('id'));
  if (!Number.isSafeInteger(id) || id <= 0) throw new UserError('not a stage_id');
  return id;
};

/** The message a failure shows: a user's mistake or a busy folder as such, anything else only as "failed" (the log has it). */
function failure(error: unknown, logger: Logger): { status: 400 | 409 | 503 | 500; notice: Notice } {
  if (error instanceof DatabaseBusyError)
    return {
      status: 503,
      notice: {
        kind: 'error',
        text: `A load is running (${error.holder?.command ?? 'another process'} holds the database folder): try again when it has finished.`,
      },
    };
  if (error instanceof RowChangedError)
    return {
      status: 409,
      notice: {
        kind: 'error',
        text: `Not resubmitted: nothing of this form was written (no value, no audit entry; the run history lists the refusal). ${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}. The row as it is now is below.`,
      },
    };
  if (error instanceof UserError) return { status: 400, notice: { kind: 'error', text: error.message } };
  if (error instanceof ZodError) return { status: 400, notice: { kind: 'error', text: error.issues[0]?.message ?? 'invalid request' } };
  logger.error({ error: describeDbError(error) }, 'serve: a request failed');
  return { status: 500, notice: { kind: 'error', text: `The request failed: ${describeDbError(error)}` } };
}

function resultNotice(result: ResubmitResult | null): Notice {
  const held = (result?.retry.controlHeld ?? []).map((h) => ` ${h.rows} row(s) of load ${h.loadId} were left ERROR: ${heldAdvice(h)}.`);
  if (result === null || result.retry.count === 0)
    return { kind: 'info', text: `No ERROR row ${held.length > 0 ? 'could be' : 'matched'}: nothing was resubmitted.${held.join('')}` };
  const p = result.process?.process;
  const processed =
    p === undefined ? 'left READY for the next process' : `processed at once: ${p.done} DONE, ${p.error} ERROR, ${p.retryWait} waiting`;
  return { kind: 'ok', text: `Resubmitted ${result.retry.count} row(s), audited; ${processed}.${held.join('')}` };
}

async function* filteredRows(loader: OrderLoader, filter: ReviewFilter): AsyncGenerator<ErrorExportRow> {
  const loadIds = await selectedLoadIds(loader, filter);
  if (loadIds !== undefined && loadIds.length === 0) return;
  const rows = loader.errorRows({ loadIds, errorCodes: filter.code === undefined ? undefined : [filter.code] });
  for await (const r of rows) if (filter.phase === undefined || r.phase === filter.phase) yield r;
}

/** The rejected rows of a filter (one keyset page), then the lines refused without a row (one page). */
async function rejectedView(loader: OrderLoader, filter: ReviewFilter, edit: { allowEdit: boolean; csrf: string }): Promise<Html> {
  const loadIds = await selectedLoadIds(loader, filter);
  const none = loadIds !== undefined && loadIds.length === 0;
  const errorCodes = filter.code === undefined ? undefined : [filter.code];
  const result = none
    ? { rows: [], nextBefore: null }
    : await loader.rejectedPage({ loadIds, errorCodes, phase: filter.phase, beforeStageId: filter.before });
  // those lines were all refused while parsing or staging: phase PARSE
  const lines =
    none || (filter.phase !== undefined && filter.phase !== 'PARSE')
      ? null
      : await loader.rejectedLines({ loadIds, errorCodes, afterErrorId: filter.lines_after });
  const body = rejectedBody(filter, result, edit, await linesFromFiles(result.rows, await knownLoads(loader)));
  return html`${body}${rejectedLinesBody(filter, lines)}`;
}

export function reviewApp(o: ReviewAppOptions): Hono {
  const app = new Hono();
  const csrf = o.csrf ?? newToken();
  const frame: Frame = { dbLabel: o.dbLabel, allowEdit: o.allowEdit };
  const edit = { allowEdit: o.allowEdit, csrf };

  /** A page; `status` is read once the body is made (a refused resubmit says 409 or 400 around the page it shows). */
  const respond = async (
    c: Context,
    title: string,
    body: (loader: OrderLoader) => Promise<Html>,
    status = (): 200 | 400 | 409 => 200,
  ): Promise<Response> => {
    try {
      const made = await o.source.use(body);
      return c.html(page(frame, title, made).markup, status());
    } catch (error) {
      const f = failure(error, o.logger);
      return c.html(page(frame, title, notice(f.notice)).markup, f.status);
    }
  };

  app.use('*', async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  });
  app.use('*', async (c, next) => {
    // without a token the page listens on loopback only; a request naming another host is a web
    // site whose name was rebound to this address (DNS rebinding): it would read the page as its
    // own, CSRF token included
    if (o.accessToken === undefined && !isLoopback(hostOf(c.req.url)))
      return c.text('421: this page answers to a loopback name (127.0.0.1, localhost, [::1]) only', 421);
    return next();
  });
  app.use('*', async (c, next) => {
    if (o.accessToken === undefined) return next();
    const query = c.req.query('token');
    const given = presentedToken(c.req.header('authorization'), getCookie(c as Context, ACCESS_COOKIE), query);
    if (!sameSecret(given, o.accessToken)) return c.text('403: this page needs its access token (--token-file)', 403);
    if (query !== undefined && c.req.method === 'GET') {
      setCookie(c as Context, ACCESS_COOKIE, o.accessToken, { httpOnly: true, sameSite: 'Strict', path: '/' });
      return c.redirect(new URL(c.req.url).pathname, 303);
    }
    return next();
  });
  app.use('*', bodyLimit({ maxSize: 64 * 1024 }));
  app.post('*', async (c, next) => {
    if (!o.allowEdit) return c.text('403: this server is read-only (start it with --allow-edit to correct rows)', 403);
    const body = await c.req.parseBody();
    if (!sameSecret(typeof body.csrf === 'string' ? body.csrf : null, csrf))
      return c.text('403: the form is not one of this page’s (CSRF token missing or wrong): reload the page', 403);
    c.set('form' as never, body as never);
    return next();
  });

  const operatorOf = (c: Context): string => {
    if (o.operatorHeader === undefined) return o.operator;
    const named = c.req.header(o.operatorHeader)?.trim();
    if (named === undefined || named === '')
      throw new UserError(`no operator: the request has no ${o.operatorHeader} header (--operator-header)`);
    return named;
  };
  const formOf = (c: Context): Record<string, unknown> => c.get('form' as never) as Record<string, unknown>;

  app.get('/assets/page.css', (c) => c.body(PAGE_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/', (c) => respond(c, 'Overview', overviewBody));
  app.get('/rejected', (c) => respond(c, 'Rejected rows', (loader) => rejectedView(loader, parseFilter(c.req.query()), edit)));
  app.get('/rejected.csv', async (c) => {
    try {
      const filter = parseFilter(c.req.query());
      // written whole to a private file first, then sent: a reader that stalls holds that file,
      // never the database (an embedded folder a load waits for, a server's connection)
      const file = await o.source.use((loader) => csvFile((out) => writeErrorsCsv(() => filteredRows(loader, filter), out)));
      return new Response(file.stream, {
        headers: { 'Content-Type': 'text/csv; charset=utf-8', 'Content-Disposition': 'attachment; filename="errors.csv"' },
      });
    } catch (error) {
      const f = failure(error, o.logger);
      return c.text(f.notice.text, f.status);
    }
  });
  /** One row's page, its line read from its file when the database does not keep it. */
  const rowPage = async (loader: OrderLoader, stageId: number): Promise<Html> => {
    const [view, loads] = [await loader.rowHistory(stageId), await knownLoads(loader)];
    return rowBody(view, loads, edit, view.row === null ? new Map() : await linesFromFiles([view.row], loads));
  };
  app.get('/row/:id', (c) => respond(c, 'Row', (loader) => rowPage(loader, stageIdOf(c))));
  app.post('/row/:id/resubmit', (c) => {
    let status: 200 | 400 | 409 = 200;
    return respond(
      c,
      'Row',
      async (loader) => {
        const id = stageIdOf(c);
        let done: Notice;
        try {
          done = resultNotice(await resubmitRow(loader, id, formOf(c), operatorOf(c)));
        } catch (error) {
          if (!(error instanceof UserError)) throw error;
          const f = failure(error, o.logger);
          status = f.status === 409 ? 409 : 400;
          done = f.notice;
        }
        return html`${notice(done)}${await rowPage(loader, id)}`;
      },
      () => status,
    );
  });
  app.post('/rejected/resubmit', (c) =>
    respond(c, 'Rejected rows', async (loader) => {
      const filter = parseFilter(
        Object.fromEntries(Object.entries(formOf(c)).filter((e): e is [string, string] => typeof e[1] === 'string')),
      );
      const done = resultNotice(await resubmitSelection(loader, filter, formOf(c), operatorOf(c)));
      return html`${notice(done)}
        <p><a href="/rejected">Back to the rejected rows</a></p>`;
    }),
  );
  app.notFound((c) => c.html(page(frame, 'Not found', notice({ kind: 'error', text: 'No such page.' })).markup, 404));
  return app;
}
