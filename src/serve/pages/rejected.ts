import type { ErrorExportRow } from '../../pipeline/errors-export.js';
import type { RejectedLinesPage, RejectedPage } from '../../pipeline/review.js';
import { filterQuery, type ReviewFilter } from '../filters.js';
import type { FileLine } from '../file-lines.js';
import { html, plain, rawLine, shown, when, type Html } from '../html.js';

function filterForm(filter: ReviewFilter): Html {
  const phase = filter.phase ?? '';
  return html`<form class="filters" method="get" action="/rejected">
    <label>load id <input name="load" inputmode="numeric" size="6" value="${filter.load ?? ''}" /></label>
    <label>file <input name="file" size="24" value="${filter.file ?? ''}" /></label>
    <label>profile <input name="profile" size="14" value="${filter.profile ?? ''}" /></label>
    <label>error code <input name="code" size="18" value="${filter.code ?? ''}" /></label>
    <label
      >phase
      <select name="phase">
        ${['', 'PARSE', 'VALIDATE', 'MERGE'].map(
          (p) => html`<option value="${p}" ${p === phase ? html` selected` : ''}>${p === '' ? 'any' : p}</option>`,
        )}
      </select></label
    >
    <button type="submit">Filter</button> <a href="/rejected">clear</a>
  </form>`;
}

function rowLine(r: ErrorExportRow, fromFiles: ReadonlyMap<number, FileLine>): Html {
  return html`<tr data-stage-id="${r.stageId}" data-source-key="${plain(r.sourceKey ?? '')}">
    <td class="num"><a href="/row/${r.stageId}">${r.stageId}</a></td>
    <td>${shown(r.sourceKey)}</td>
    <td class="num">${r.loadId}</td>
    <td class="num">${r.lineNo}</td>
    <td class="raw">${rawLine(r, fromFiles)}</td>
    <td>${shown(r.customerId)}</td>
    <td>${shown(r.orderDate)}</td>
    <td>${shown(r.amount)}</td>
    <td>${shown(r.currency)}</td>
    <td><span class="code">${shown(r.errorCode)}</span> ${shown(r.errorMessage)}</td>
    <td>${r.phase}</td>
    <td class="num">${r.attemptCount}</td>
    <td>${when(r.loggedAt ?? r.updatedAt)}</td>
  </tr>`;
}

function bulkForm(filter: ReviewFilter, csrf: string): Html {
  return html`<form class="bulk" method="post" action="/rejected/resubmit">
    <input type="hidden" name="csrf" value="${csrf}" />
    ${(['load', 'file', 'profile', 'code', 'phase'] as const).map((k) => (filter[k] === undefined ? '' : html`<input type="hidden" name="${k}" value="${filter[k]}" />`))}
    <label>reason (recorded in the audit) <input class="reason" name="reason" required maxlength="1000" /></label>
    <label
      ><span><input type="checkbox" name="confirm" value="yes" required /> resubmit every ERROR row of this filter, unchanged</span></label
    >
    <button type="submit">Resubmit selection</button>
    <span class="hint">Each row goes back to READY with this reason (as <code>retry --reason</code>) and is processed at once.</span>
  </form>`;
}

/** The rejected rows of a filter, newest first, one keyset page. */
export function rejectedBody(
  filter: ReviewFilter,
  result: RejectedPage,
  edit: { allowEdit: boolean; csrf: string },
  fromFiles: ReadonlyMap<number, FileLine>,
): Html {
  const first = filter.before === undefined;
  return html`${filterForm(filter)}
    <p>
      <a class="button" href="/rejected.csv${filterQuery({ ...filter, before: undefined })}" download="errors.csv"
        >Download these as the errors CSV</a
      >
      <span class="hint"
        >the same file as <code>order-loader errors</code> (with the lines refused while staging); fix it and load it back.</span
      >
    </p>
    ${edit.allowEdit ? bulkForm(filter, edit.csrf) : ''}
    ${
      result.rows.length === 0
        ? html`<p>No ERROR row ${first ? 'matches this filter' : 'is older than this page'}.</p>`
        : html`<table class="rejected">
            <tr>
              <th>stage_id</th>
              <th>source_key</th>
              <th>load</th>
              <th>line</th>
              <th>raw line</th>
              <th>customer_id</th>
              <th>order_date</th>
              <th>amount</th>
              <th>currency</th>
              <th>error</th>
              <th>phase</th>
              <th>attempts</th>
              <th>last attempt</th>
            </tr>
            ${result.rows.map((r) => rowLine(r, fromFiles))}
          </table>`
    }
    <p class="pager">
      ${first ? '' : html`<a href="/rejected${filterQuery(filter)}">« newest</a>`}
      ${result.nextBefore === null ? html`<span class="hint">end of the list</span>` : html`<a rel="next" href="/rejected${filterQuery(filter, result.nextBefore)}">older »</a>`}
    </p>`;
}

function lineRow(r: ErrorExportRow): Html {
  return html`<tr data-line-no="${r.lineNo}">
    <td class="num">${r.loadId}</td>
    <td class="num">${r.lineNo}</td>
    <td class="raw">${shown(r.rawRecord)}</td>
    <td><span class="code">${shown(r.errorCode)}</span> ${shown(r.errorMessage)}</td>
    <td>${when(r.loggedAt)}</td>
  </tr>`;
}

/** The lines refused while staging that have no stage row: listed as `errors` lists them (after the ERROR rows), oldest first. */
export function rejectedLinesBody(filter: ReviewFilter, page: RejectedLinesPage | null): Html {
  if (page === null || (page.lines.length === 0 && filter.lines_after === undefined)) return html``;
  const params = new URLSearchParams(filterQuery(filter, filter.before).slice(1));
  if (page.nextAfter !== null) params.set('lines_after', String(page.nextAfter));
  return html`<h2>Lines refused while staging, without a row</h2>
    <p class="hint">No usable source_key, a wrong field count or bytes that are not text: fix them in the CSV and load it back.</p>
    <table class="lines">
      <tr>
        <th>load</th>
        <th>line</th>
        <th>raw line</th>
        <th>error</th>
        <th>logged</th>
      </tr>
      ${page.lines.map(lineRow)}
    </table>
    ${page.nextAfter === null ? '' : html`<p class="pager"><a href="/rejected?${params.toString()}">more lines »</a></p>`}`;
}
