import { describe, expect, it } from 'vitest';
import { stagingHistoryFromEvents } from '../../src/engine/run-events.js';
import type { StagingHistory } from '../../src/engine/types.js';
import { planLoadId, planStaging, resumedAt, type StagingPlanOptions } from '../../src/pipeline/staging-plan.js';
import { emptyStageCounts, type FileStageCounts } from '../../src/pipeline/stage.js';

const utf8: StagingPlanOptions = { encoding: 'utf-8', delimiter: ',' };
const utf8Read = { encoding: 'utf-8', delimiter: ',' };
const counts: FileStageCounts = { ...emptyStageCounts(), read: 10, inserted: 7, rejected: 3 };
const stop = { line: 11, message: 'unterminated quoted field' };

/** The latest load (7) of the file: read as UTF-8 with ',' unless told, staged or not, with a checkpoint or not. */
function history(over: Partial<StagingHistory> & { checkpoint?: StagingHistory['checkpoint'] } = {}): StagingHistory {
  return { runId: 7, loadId: 7, staged: false, checkpoint: null, readAs: { encoding: 'utf-8', delimiter: ',' }, ...over };
}
const checkpoint = (over: Partial<NonNullable<StagingHistory['checkpoint']>> = {}): NonNullable<StagingHistory['checkpoint']> => ({
  line: 10,
  byte: 420,
  counts,
  stoppedAt: null,
  ...over,
});

describe('planStaging: a file never staged, or to be staged as another file', () => {
  it('no history: a fresh load, which is this run', () => {
    const plan = planStaging(null, utf8);
    expect(plan).toEqual({ action: 'fresh', reason: 'new' });
    expect(planLoadId(plan, 42)).toBe(42);
    expect(resumedAt(plan)).toBeNull();
  });

  it('--restage stages a completely staged file again as a new load', () => {
    const plan = planStaging(history({ staged: true, checkpoint: checkpoint() }), { ...utf8, restage: true });
    expect(plan).toEqual({ action: 'fresh', reason: 'restage' });
    expect(planLoadId(plan, 42)).toBe(42);
  });

  it('--restage also overrides an interrupted load that could resume', () => {
    expect(planStaging(history({ checkpoint: checkpoint() }), { ...utf8, restage: true })).toEqual({ action: 'fresh', reason: 'restage' });
  });

  it('the same bytes read with another encoding are another file: staged, not skipped', () => {
    const plan = planStaging(history({ staged: true, checkpoint: checkpoint(), readAs: { encoding: 'latin1', delimiter: ',' } }), utf8);
    expect(plan).toEqual({ action: 'fresh', reason: 'read-differently' });
  });

  it('the same bytes read with another delimiter are another file', () => {
    expect(planStaging(history({ staged: true, readAs: { encoding: 'utf-8', delimiter: ';' } }), utf8)).toEqual({
      action: 'fresh',
      reason: 'read-differently',
    });
  });

  it('restage: false is the same as not asking', () => {
    expect(planStaging(history({ staged: true }), { ...utf8, restage: false }).action).toBe('skip');
  });
});

describe('planStaging: skip', () => {
  it('staged completely before: skipped, the rows stay with that load, its rejected lines carried', () => {
    const plan = planStaging(history({ staged: true, checkpoint: checkpoint() }), utf8);
    expect(plan).toEqual({ action: 'skip', loadId: 7, committed: counts });
    expect(planLoadId(plan, 42)).toBe(7);
    expect(resumedAt(plan)).toBeNull();
  });

  it('staged completely, but its checkpoint counts are not counts (an older record): skipped, nothing carried', () => {
    const plan = planStaging(history({ staged: true, checkpoint: checkpoint({ counts: { read: 'x' } }) }), utf8);
    expect(plan).toEqual({ action: 'skip', loadId: 7, committed: null });
  });

  it('staged completely with no checkpoint recorded: skipped, nothing carried', () => {
    expect(planStaging(history({ staged: true }), utf8)).toEqual({ action: 'skip', loadId: 7, committed: null });
  });

  it('staged completely without byte offsets (a decoded encoding): still skipped, with its load', () => {
    const plan = planStaging(history({ staged: true, checkpoint: checkpoint({ byte: null }) }), utf8);
    expect(plan).toEqual({ action: 'skip', loadId: 7, committed: counts });
    expect(planLoadId(plan, 42)).toBe(7);
  });

  it('a completed load wins over a stop recorded in its last checkpoint', () => {
    expect(planStaging(history({ staged: true, checkpoint: checkpoint({ stoppedAt: stop }) }), utf8).action).toBe('skip');
  });
});

describe('planStaging: stop', () => {
  it('an earlier load could not read past a line: not read again, with that load and its counts', () => {
    const plan = planStaging(history({ checkpoint: checkpoint({ stoppedAt: stop }) }), utf8);
    expect(plan).toEqual({ action: 'stop', loadId: 7, stoppedAt: stop, committed: counts });
    expect(planLoadId(plan, 42)).toBe(7);
    expect(resumedAt(plan)).toBeNull();
  });

  it('the stopped load had no byte offsets: not read again, and this run is the load', () => {
    const plan = planStaging(history({ checkpoint: checkpoint({ byte: null, stoppedAt: stop }) }), utf8);
    expect(plan).toEqual({ action: 'stop', loadId: null, stoppedAt: stop, committed: counts });
    expect(planLoadId(plan, 42)).toBe(42);
  });
});

describe('planStaging: resume', () => {
  it('interrupted after a committed batch: resume after its line and byte, its counts carried over', () => {
    const plan = planStaging(history({ checkpoint: checkpoint() }), utf8);
    expect(plan).toEqual({ action: 'resume', loadId: 7, from: { line: 10, byte: 420 }, counts });
    expect(planLoadId(plan, 42)).toBe(7);
    expect(resumedAt(plan)).toEqual({ line: 10, byte: 420 });
  });

  it('without byte offsets (a decoded encoding): the same load, after its line (read from line 1, the lines committed passed over)', () => {
    const plan = planStaging(history({ checkpoint: checkpoint({ byte: null }) }), utf8);
    expect(plan).toEqual({ action: 'resume', loadId: 7, from: { line: 10, byte: null }, counts });
    expect(planLoadId(plan, 42)).toBe(7);
  });

  it('byte 0 is an offset to resume at, not a missing one', () => {
    expect(planStaging(history({ checkpoint: checkpoint({ line: 1, byte: 0 }) }), utf8)).toMatchObject({
      action: 'resume',
      from: { line: 1, byte: 0 },
    });
  });

  it('counts that are not counts are not carried over', () => {
    expect(planStaging(history({ checkpoint: checkpoint({ counts: null }) }), utf8)).toMatchObject({ action: 'resume', counts: null });
  });
});

describe('planStaging: fresh after an earlier load that cannot continue', () => {
  it('interrupted before any batch committed: from line 1, as a new load', () => {
    const plan = planStaging(history(), utf8);
    expect(plan).toEqual({ action: 'fresh', reason: 'nothing-committed' });
    expect(planLoadId(plan, 42)).toBe(42);
  });
});

describe('stagingHistoryFromEvents: the run that committed the facts, and the load they belong to', () => {
  it('a resumed run: its own run id, the earlier load from its invoked event, its last checkpoint', () => {
    const history = stagingHistoryFromEvents(
      12,
      JSON.stringify({ loadId: 9, encoding: 'utf-8', delimiter: ',' }),
      false,
      JSON.stringify({ loadId: 9, line: 30, byte: 900, counts }),
    );
    expect(history).toEqual({
      runId: 12,
      loadId: 9,
      staged: false,
      readAs: utf8Read,
      checkpoint: { line: 30, byte: 900, counts, stoppedAt: null },
    });
    // what the run committed is continued, for the load it belongs to
    expect(planStaging(history, utf8)).toEqual({ action: 'resume', loadId: 9, from: { line: 30, byte: 900 }, counts });
  });

  it('a run without a loadId in its invoked event is its own load', () => {
    expect(stagingHistoryFromEvents(5, '{}', true, null)).toMatchObject({ runId: 5, loadId: 5, staged: true, checkpoint: null });
  });
});
