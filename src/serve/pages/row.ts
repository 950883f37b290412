import type { AuditEntry, ErrorLogEntry } from '../../engine/types.js';
import type { ErrorExportRow } from '../../pipeline/errors-export.js';
import type { RowHistoryView } from '../../pipeline/review.js';
import type { KnownLoad } from '../filters.js';
import type { FileLine } from '../file-lines.js';
import { html, plain, rawLine, ROW_CHARS, shown, when, type Html } from '../html.js';

/** The name of an attribute's input: `attribute.NAME` (retry --set attributes.NAME=value; an emptied one is removed). */
export const ATTRIBUTE_INPUT = 'attribute.';

/** The fields an operator can correct (retry --set), with their values as the form shows them. */
export const EDIT_FIELDS = [
  ['customer_id', 'customerId'],
  ['order_date', 'orderDate'],
  ['amount', 'amount'],
  ['currency', 'currency'],
] as const;

function errorLine(e: ErrorLogEntry): Html {
  return html`<tr>
    <td class="num">${e.errorId}</td>
    <td>${when(e.loggedAt)}</td>
    <td class="num">${e.attemptNo}</td>
    <td>${e.phase}</td>
    <td><span class="code">${shown(e.errorCode)}</span> ${shown(e.errorMessage)}</td>
    <td class="num">${e.loadId}</td>
    <td class="num">${e.lineNo}</td>
    <td>${shown(e.batchId)}</td>
    <td class="raw">${shown(e.rawRecord, ROW_CHARS)}</td>
  </tr>`;
}

function auditLine(a: AuditEntry): Html {
  return html`<tr class="audit">
    <td>${when(a.at)}</td>
    <td>${a.action}</td>
    <td>${shown(a.operator)}</td>
    <td>${shown(a.reason)}</td>
    <td>${shown(a.oldStatus)} → ${shown(a.newStatus)}</td>
    <td>${shown(a.oldValues, ROW_CHARS)}</td>
    <td>${shown(a.newValues, ROW_CHARS)}</td>
  </tr>`;
}

function editForm(row: ErrorExportRow, csrf: string): Html {
  return html`<h2>Correct and resubmit</h2>
    <form class="edit" method="post" action="/row/${row.stageId}/resubmit">
      <input type="hidden" name="csrf" value="${csrf}" />
      <input type="hidden" name="seen_attempts" value="${row.attemptCount}" />
      <input type="hidden" name="seen_updated" value="${row.updatedAt?.toISOString() ?? ''}" />
      ${EDIT_FIELDS.map(
        // control characters escaped here too: an unchanged field (its was_ value the same text) is no correction
        ([field, key]) =>
          html`<input type="hidden" name="was_${field}" value="${plain(row[key] ?? '')}" />
            <label>${field} <input name="${field}" value="${plain(row[key] ?? '')}" maxlength="200" /></label>`,
      )}
      ${Object.entries(row.attributes ?? {})
        // a name the page would have to escape could not be sent back as it is: such an attribute is shown, not edited
        .filter(([name]) => plain(name) === name)
        .map(
          ([name, value]) =>
            html`<input type="hidden" name="was_${ATTRIBUTE_INPUT}${name}" value="${plain(value)}" />
              <label class="attribute"
                >${shown(name)} <span class="hint">(attribute)</span>
                <input name="${ATTRIBUTE_INPUT}${name}" value="${plain(value)}" maxlength="10000"
              /></label>`,
        )}
      <label>reason (required, recorded in the audit) <input class="reason" name="reason" required maxlength="1000" /></label>
      <button type="submit">Resubmit</button>
      <span class="hint"
        >The changed fields and attributes (an emptied attribute is removed) are corrected and the row goes back to READY, audited, as
        <code>retry --stage-id ${row.stageId} --set … --reason …</code>; it is processed at once.</span
      >
    </form>`;
}

/** One row: its values, its raw line, every attempt's error, every audit entry, the loads it came from. */
export function rowBody(
  view: RowHistoryView,
  loads: KnownLoad[],
  edit: { allowEdit: boolean; csrf: string },
  fromFiles: ReadonlyMap<number, FileLine>,
): Html {
  const row = view.row;
  if (row === null) return html`<p>No such row.</p>`;
  const fromLoads = view.loadIds.map((id) => {
    const l = loads.find((k) => k.loadId === id);
    return html`<li>
      load <a href="/rejected?load=${id}">${id}</a>: ${shown(l?.fileName ?? null)}${l?.profile ? html` (profile ${shown(l.profile)})` : ''}
    </li>`;
  });
  return html`<table class="row">
      <tr>
        <th>stage_id</th>
        <td class="num">${row.stageId}</td>
        <th>source_key</th>
        <td>${shown(row.sourceKey)}</td>
      </tr>
      <tr>
        <th>status</th>
        <td id="row-status">${row.status}</td>
        <th>attempt_count</th>
        <td id="row-attempts" class="num">${row.attemptCount}</td>
      </tr>
      <tr>
        <th>load</th>
        <td class="num">${row.loadId}</td>
        <th>line</th>
        <td class="num">${row.lineNo}</td>
      </tr>
      <tr>
        <th>error</th>
        <td colspan="3"><span class="code">${shown(row.errorCode)}</span> ${shown(row.errorMessage)}</td>
      </tr>
      ${EDIT_FIELDS.map(
        ([field, key]) =>
          html`<tr>
            <th>${field}</th>
            <td colspan="3">${shown(row[key])}</td>
          </tr>`,
      )}
      ${
        row.attributes === undefined
          ? ''
          : html`<tr>
              <th>attributes</th>
              <td colspan="3">${Object.entries(row.attributes).map(([k, v]) => html`${shown(k)} = ${shown(v)}<br />`)}</td>
            </tr>`
      }
      <tr>
        <th>raw line</th>
        <td colspan="3" class="raw" id="row-raw">${rawLine(row, fromFiles, ROW_CHARS)}</td>
      </tr>
      <tr>
        <th>updated</th>
        <td colspan="3">${when(row.updatedAt)}</td>
      </tr>
    </table>
    ${row.valuesFrom === 'line' ? html`<p class="hint">The line was rejected while parsing: the values above are split again from it.</p>` : ''}
    ${edit.allowEdit && row.status === 'ERROR' ? editForm(row, edit.csrf) : ''}
    <h2>Attempts (error log)</h2>
    ${
      view.errors.length === 0
        ? html`<p>None.</p>`
        : html`<table class="errors">
            <tr>
              <th>error_id</th>
              <th>logged</th>
              <th>attempt</th>
              <th>phase</th>
              <th>error</th>
              <th>load</th>
              <th>line</th>
              <th>batch</th>
              <th>raw line</th>
            </tr>
            ${view.errors.map(errorLine)}
          </table>`
    }
    <h2>Audit</h2>
    ${
      view.audit.length === 0
        ? html`<p>No manual change.</p>`
        : html`<table class="audit">
            <tr>
              <th>at</th>
              <th>action</th>
              <th>operator</th>
              <th>reason</th>
              <th>status</th>
              <th>old values</th>
              <th>new values</th>
            </tr>
            ${view.audit.map(auditLine)}
          </table>`
    }
    <h2>Came from</h2>
    <ul>
      ${fromLoads}
    </ul>`;
}
