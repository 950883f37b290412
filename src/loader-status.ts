/** The library's read-only views of the database: `status`, `runs`, and the metrics file's gauges. */
import type { Engine, RunEventRecord, RunRecord, StatusReport, StatusTally } from './engine/types.js';
import type { DatabaseState } from './pipeline/load.js';

/** What these views read of the engine. */
type StatusPort = Pick<Engine, 'statusReport' | 'loadRuns' | 'listRuns' | 'listRunEvents'>;

/** The loads `status` shows when not told which: the newest ten. */
export const STATUS_RECENT_LOADS = 10;

/** Which loads OrderLoader.status shows (see statusOf). */
export interface StatusFilter {
  all?: boolean | undefined;
  loadIds?: readonly number[] | undefined;
  since?: Date | null | undefined;
  recent?: number | undefined;
}

/** A load as `status` shows it: its file, when it started, and its rows by status now. */
export interface LoadStatus {
  loadId: number;
  fileName: string | null;
  startedAt: Date | null;
  counts: StatusTally;
}

/** The database's state now: rows by status, and since when the oldest row still to be loaded waits (the metrics file's gauges). */
export async function databaseState(engine: StatusPort): Promise<DatabaseState> {
  const report = await engine.statusReport();
  const rows: DatabaseState['rows'] = {};
  for (const c of report.counts) rows[c.status] = (rows[c.status] ?? 0) + c.count;
  return { readAt: new Date(), rows, oldestWaitingSince: report.oldestWaitingSince };
}

/**
 * Counts by status (of every row), the loads asked for with their file, start and counts, and
 * the last 5 runs. Loads: those of `loadIds` and started since `since` (each given filter
 * must hold), or with neither every load (`all`) or the newest `recent` (default 10);
 * `otherLoads` counts the loads not shown.
 */
export async function statusOf(
  engine: StatusPort,
  filter: StatusFilter = {},
): Promise<StatusReport & { runs: RunRecord[]; loads: LoadStatus[]; otherLoads: number }> {
  const report = await engine.statusReport();
  const byLoad = new Map<number, StatusTally>();
  for (const c of report.counts) {
    if (c.loadId === null) continue;
    const tally = byLoad.get(c.loadId) ?? {};
    tally[c.status] = (tally[c.status] ?? 0) + c.count;
    byLoad.set(c.loadId, tally);
  }
  const every = [...byLoad.keys()].sort((a, b) => a - b);
  const asked = filter.loadIds !== undefined && filter.loadIds.length > 0 ? new Set(filter.loadIds) : null;
  const since = filter.since ?? null;
  let chosen = asked === null ? every : every.filter((id) => asked.has(id));
  if (asked === null && since === null && filter.all !== true) chosen = chosen.slice(-(filter.recent ?? STATUS_RECENT_LOADS));
  const runs = await engine.loadRuns({ loadIds: since === null ? chosen : [], since });
  const info = new Map(runs.map((r) => [r.loadId, r]));
  if (since !== null) chosen = chosen.filter((id) => info.has(id));
  const loads = chosen.map((loadId) => ({
    loadId,
    fileName: info.get(loadId)?.fileName ?? null,
    startedAt: info.get(loadId)?.startedAt ?? null,
    counts: byLoad.get(loadId) ?? {},
  }));
  return { ...report, loads, otherLoads: every.length - loads.length, runs: await engine.listRuns(5) };
}

/**
 * The newest runs with their events; a run that read its file through a load profile (`--profile`,
 * or the file's own by `--profiles`) has `profile`: its name and content hash, from its `invoked` event.
 */
export async function runsWithEvents(
  engine: StatusPort,
  limit = 20,
): Promise<Array<RunRecord & { events: RunEventRecord[]; profile?: { name: string; sha256: string } }>> {
  const runs = await engine.listRuns(limit);
  const events = await engine.listRunEvents(runs.map((r) => r.runId));
  return runs.map((r) => {
    const own = events.filter((e) => e.runId === r.runId);
    const profile = profileOfRun(own);
    return { ...r, events: own, ...(profile === null ? {} : { profile }) };
  });
}

/** The load profile a run read its file with, as its `invoked` event recorded it (src/pipeline/load-journal.ts); null: none. */
function profileOfRun(events: RunEventRecord[]): { name: string; sha256: string } | null {
  const recorded = events.find((e) => e.event === 'invoked')?.detail?.profile as { name?: unknown; sha256?: unknown } | null | undefined;
  return typeof recorded?.name === 'string' && typeof recorded.sha256 === 'string'
    ? { name: recorded.name, sha256: recorded.sha256 }
    : null;
}
