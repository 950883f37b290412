import type { StageBatchCounts } from './types.js';

/** Add `more`'s staging counts into `into` (a batch staged in parts: bisected halves, or a refused line's earlier line). */
export function addStageCounts(into: StageBatchCounts, more: StageBatchCounts): void {
  into.inserted += more.inserted;
  into.updated += more.updated;
  into.unchanged += more.unchanged;
  into.unchangedError += more.unchangedError;
  into.repeatedInLoad += more.repeatedInLoad;
}
