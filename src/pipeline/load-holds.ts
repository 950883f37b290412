/**
 * The end of a run's holds (src/pipeline/load.ts): released when its staging ends, and the HELD
 * rows that no rerun will release: a load killed while it staged holds the rows of keys its
 * files repeat until a run that stages those same files (skipping or resuming that load) ends its
 * staging. A rerun whose file is not the same any more (a corrected resend, another profile,
 * encoding or delimiter: another identity) is a new load, and the earlier load's rows that the
 * new file did not stage again stay HELD. A run says so: report, exit code 2, metrics.
 */
import { basename } from 'node:path';
import type { Reports } from '../engine/contract.js';
import type { FileStaging } from './load-file.js';
import type { FileReport, LoadOptions, StrandedHold } from './load-options.js';

/**
 * The run's staging ended (every file's last line is in, or the file cannot be read past a
 * line): the HELD rows of its loads are released, whoever held them (this run, or a killed run
 * of one of its files that this one resumed or skipped). One statement on a partial index that
 * holds only HELD rows. A run interrupted or stopped by --max-errors leaves them HELD: its rerun
 * (which resumes or skips those loads) releases them, or `recover --older-than` once they are older.
 */
export async function releaseHeld(run: FileStaging, reports: FileReport[]): Promise<void> {
  const loadIds = [...new Set(reports.map((r) => r.loadId))];
  if (loadIds.length === 0) return;
  const released = await run.db('releasing the held rows of the run', () => run.engine.transaction((tx) => tx.releaseHeld(loadIds)));
  if (released > 0) run.options.logger.info({ loadIds, released }, `${released} held row(s) released to processing`);
}

/**
 * The HELD rows of earlier loads whose file has the base name of one of this run's files, that
 * this run did not release (not one of its loads) and that no running run stages; logged.
 */
export async function findStrandedHolds(
  engine: Pick<Reports, 'heldLoads'>,
  reports: FileReport[],
  options: Pick<LoadOptions, 'logger'>,
): Promise<StrandedHold[]> {
  if (reports.length === 0) return [];
  const ownLoads = new Set(reports.map((r) => r.loadId));
  const names = new Map(reports.map((r) => [basename(r.file), r.file]));
  const stranded: StrandedHold[] = [];
  for (const held of await engine.heldLoads()) {
    if (held.staging || ownLoads.has(held.loadId) || held.fileName === null) continue;
    const file = names.get(basename(held.fileName));
    if (file === undefined) continue;
    const hold: StrandedHold = { file, loadId: held.loadId, rows: held.rows, heldSince: held.heldSince, heldFile: held.fileName };
    options.logger.warn({ ...hold }, strandedMessage(hold));
    stranded.push(hold);
  }
  return stranded;
}

/** What a stranded hold is and what releases it, in one line. */
export function strandedMessage(h: StrandedHold): string {
  const rows = `${h.rows} row${h.rows === 1 ? '' : 's'}`;
  return `${h.file}: ${rows} of load ${h.loadId} (an earlier load of ${h.heldFile}, interrupted while staging) ${h.rows === 1 ? 'is' : 'are'} still HELD, out of processing: this run read the file as another one (changed content, profile, encoding or delimiter) and did not release them. Loading that earlier file again as it was releases them; \`order-loader recover --older-than <less than their age>\` gives them up (audited) and hands them to processing`;
}
