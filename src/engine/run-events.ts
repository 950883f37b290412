import type { ControlHeldRows, FileLayout, StagingHistory } from './types.js';

/**
 * A load's ERROR rows a retry left (control_held_errors.sql): held for its control totals, by an
 * unfinished hold set, or both. Held by control unless the row says otherwise (a driver that
 * leaves the flags out reads as the control hold alone).
 */
export function heldRowsOf(loadId: number, rows: number, control: unknown, bySet: unknown): ControlHeldRows {
  const set = bySet === true || bySet === 1;
  const notControl = control === false || control === 0;
  return { loadId, rows, ...(set ? { set: true as const } : {}), ...(set && notControl ? { control: false as const } : {}) };
}

/** The JSON object of a run's counts or an event's detail (stored as text), or null. */
export function parseJsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/**
 * A file's staging history from the events of the run that committed it last, the same for
 * every engine: the load id from the 'invoked' event's detail (else the run id), the last
 * 'staged_checkpoint' detail as the checkpoint {line, byte, counts, stoppedAt}.
 */
export function stagingHistoryFromEvents(
  runId: number,
  invokedDetail: string | null,
  staged: boolean,
  checkpointDetail: string | null,
): StagingHistory {
  const invoked = parseJsonObject(invokedDetail);
  const checkpoint = parseJsonObject(checkpointDetail);
  const stopped = checkpoint?.stoppedAt;
  const stoppedAt =
    typeof stopped === 'object' && stopped !== null && typeof (stopped as { line?: unknown }).line === 'number'
      ? { line: (stopped as { line: number }).line, message: messageText((stopped as { message?: unknown }).message) }
      : null;
  return {
    runId,
    loadId: typeof invoked?.loadId === 'number' ? invoked.loadId : runId,
    staged,
    readAs: {
      encoding: typeof invoked?.encoding === 'string' ? invoked.encoding : 'utf-8',
      delimiter: typeof invoked?.delimiter === 'string' ? invoked.delimiter : ',',
      ...profileSha256(invoked?.profile),
    },
    checkpoint:
      checkpoint !== null && typeof checkpoint.line === 'number'
        ? {
            line: checkpoint.line,
            byte: typeof checkpoint.byte === 'number' ? checkpoint.byte : null,
            counts: checkpoint.counts ?? null,
            stoppedAt,
          }
        : null,
  };
}

/** An event's detail (JSON text) as an object; null when it has none or it is not a JSON object. */
export function eventDetail(detail: string | null): Record<string, unknown> | null {
  if (detail === null) return null;
  try {
    const value: unknown = JSON.parse(detail);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** The file layout (header names in file order, delimiter) recorded in a load's 'invoked' event detail, or null (a load staged before it was recorded). */
export function fileLayoutFromInvoked(detailText: string | null): FileLayout | null {
  const detail = parseJsonObject(detailText);
  const header = detail?.header;
  const delimiter = detail?.delimiter;
  if (!Array.isArray(header) || !header.every((h) => typeof h === 'string') || typeof delimiter !== 'string' || delimiter === '')
    return null;
  const profile = detail?.profile as { name?: unknown; sha256?: unknown; spec?: unknown } | undefined;
  if (profile !== undefined && typeof profile.name === 'string' && typeof profile.sha256 === 'string') {
    const encoding = typeof detail?.encoding === 'string' ? detail.encoding : 'utf-8';
    return { header, delimiter, profile: { name: profile.name, sha256: profile.sha256, spec: profile.spec, encoding } };
  }
  return { header, delimiter };
}

/** The profile hash of an 'invoked' event's `profile`, when it has one (runs without one read the built-in format). */
function profileSha256(profile: unknown): { profile?: string } {
  const sha = (profile as { sha256?: unknown } | null | undefined)?.sha256;
  return typeof sha === 'string' ? { profile: sha } : {};
}

/** A recorded message as text (written by us as a string; anything else is shown as JSON). */
function messageText(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'string' ? value : JSON.stringify(value);
}
