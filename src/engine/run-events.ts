import type { StagingHistory } from './types.js';

/** The JSON object of a run's counts or an event's detail (stored as text), or null. */
export function parseJsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null) return null;
  const value: unknown = JSON.parse(text);
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : null;
}

/**
 * A file's staging history from the run's events, the same for every engine: the load id from
 * the 'invoked' event's detail (else the run id), the last 'staged_checkpoint' detail as the
 * checkpoint {line, byte, counts, stoppedAt}.
 */
export function stagingHistoryFromEvents(runId: number, invokedDetail: string | null, staged: boolean, checkpointDetail: string | null): StagingHistory {
  const invoked = parseJsonObject(invokedDetail);
  const checkpoint = parseJsonObject(checkpointDetail);
  const stopped = checkpoint?.stoppedAt;
  const stoppedAt =
    typeof stopped === 'object' && stopped !== null && typeof (stopped as { line?: unknown }).line === 'number'
      ? { line: (stopped as { line: number }).line, message: String((stopped as { message?: unknown }).message ?? '') }
      : null;
  return {
    loadId: typeof invoked?.loadId === 'number' ? invoked.loadId : runId,
    staged,
    readAs: {
      encoding: typeof invoked?.encoding === 'string' ? invoked.encoding : 'utf-8',
      delimiter: typeof invoked?.delimiter === 'string' ? invoked.delimiter : ',',
    },
    checkpoint:
      checkpoint !== null && typeof checkpoint.line === 'number'
        ? { line: checkpoint.line, byte: typeof checkpoint.byte === 'number' ? checkpoint.byte : null, counts: checkpoint.counts ?? null, stoppedAt }
        : null,
  };
}
