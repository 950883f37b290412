import type { OrderLoader } from '../../loader.js';
import { html, shown, when, type Html } from '../html.js';

const STATUSES = ['READY', 'HELD', 'PROCESSING', 'RETRY_WAIT', 'DONE', 'ERROR'] as const;

/** The exit code a run's command gave, as its status and counts say (src/pipeline/outcome.ts). */
export function runExitCode(status: string, counts: Record<string, number> | null): number | null {
  if (status === 'RUNNING') return null;
  if (status === 'FAILED') return 1;
  const c = counts ?? {};
  return (c.rejected ?? 0) + (c.status_ERROR ?? 0) + (c.status_RETRY_WAIT ?? 0) > 0 ? 2 : 0;
}

/** What `status` shows: rows by status now, the oldest waiting row, the latest loads and runs. */
export async function overviewBody(loader: OrderLoader): Promise<Html> {
  const status = await loader.status();
  const runs = await loader.runs(10);
  const total: Record<string, number> = {};
  for (const c of status.counts) total[c.status] = (total[c.status] ?? 0) + c.count;
  const held = status.loads.filter((l) => (l.counts.HELD ?? 0) > 0);
  return html` <h2>Rows by status</h2>
    <table class="counts">
      <tr>
        ${STATUSES.map((s) => html`<th>${s}</th>`)}
      </tr>
      <tr>
        ${STATUSES.map((s) => html`<td class="num" data-status="${s}">${total[s] ?? 0}</td>`)}
      </tr>
    </table>
    <p>
      ${
        status.oldestReady === null
          ? 'No row is waiting to be processed.'
          : html`Oldest waiting row: stage_id
              <a href="/row/${status.oldestReady.stageId}">${status.oldestReady.stageId}</a> (${shown(status.oldestReady.sourceKey)}),
              staged ${when(status.oldestReady.stagedAt)}.`
      }
      ${status.retryWait.count > 0 ? html`${status.retryWait.count} row(s) wait for a retry; the first is due ${when(status.retryWait.nextDueAt)}.` : ''}
      ${(total.ERROR ?? 0) > 0 ? html` <a href="/rejected">Review the ${total.ERROR} ERROR row(s)</a>.` : ''}
    </p>
    <h2>Latest loads</h2>
    <table>
      <tr>
        <th>load</th>
        <th>started</th>
        ${STATUSES.map((s) => html`<th>${s}</th>`)}
        <th>file</th>
      </tr>
      ${status.loads
        .slice()
        .reverse()
        .map(
          (l) =>
            html`<tr>
              <td class="num"><a href="/rejected?load=${l.loadId}">${l.loadId}</a></td>
              <td>${when(l.startedAt)}</td>
              ${STATUSES.map((s) => html`<td class="num">${l.counts[s] ?? 0}</td>`)}
              <td>${shown(l.fileName)}</td>
            </tr>`,
        )}
    </table>
    ${status.otherLoads > 0 ? html`<p class="hint">${status.otherLoads} older load(s) not shown (counted above).</p>` : ''}
    ${held.length > 0 ? html`<p>Files held (rows HELD while their load stages): ${held.map((l) => html`load ${l.loadId} ${shown(l.fileName)} (${l.counts.HELD}) `)}</p>` : ''}
    <h2>Latest runs</h2>
    <table>
      <tr>
        <th>run</th>
        <th>command</th>
        <th>status</th>
        <th>exit code</th>
        <th>started</th>
        <th>finished</th>
        <th>file</th>
        <th>profile</th>
        <th>message</th>
      </tr>
      ${runs.map(
        (r) =>
          html`<tr>
            <td class="num">${r.runId}</td>
            <td>${r.command}</td>
            <td>${r.status}</td>
            <td class="num">${runExitCode(r.status, r.counts) ?? '—'}</td>
            <td>${when(r.startedAt)}</td>
            <td>${when(r.finishedAt)}</td>
            <td>${shown(r.fileName)}</td>
            <td>${shown(r.profile?.name ?? null)}</td>
            <td>${shown(r.message)}</td>
          </tr>`,
      )}
    </table>`;
}
