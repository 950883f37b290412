/**
 * A resumed load's batch without the keys a load begun after it staged (src/pipeline/stage-batch.ts,
 * withoutKeys): those lines are not staged, counted as duplicates, their error-log rows kept.
 */
import { describe, expect, it } from 'vitest';
import type { StageInput } from '../../src/engine/types.js';
import { addRow, newBatch, withoutKeys } from '../../src/pipeline/stage-batch.js';

function row(sourceKey: string, lineNo: number, amount: string): StageInput {
  return { sourceKey, customerId: '1', orderDate: '2026-11-01', amount, currency: 'JPY', lineNo };
}

describe('withoutKeys', () => {
  it('drops every line of the keys (the last one and the earlier ones kept for a refusal), each a duplicate', () => {
    const b = newBatch();
    for (const [key, line, amount] of [
      ['K1', 2, '1.00'],
      ['B1', 3, '2.00'],
      ['K1', 4, '3.00'],
      ['B2', 5, '4.00'],
    ] as const)
      addRow(b, row(key, line, amount), { raw: `${key},${line}` });
    b.lines = 4;
    b.errors.push({
      stageId: null,
      sourceKey: 'K1',
      loadId: 7,
      lineNo: 6,
      batchId: null,
      attemptNo: null,
      phase: 'PARSE',
      code: 'X',
      message: 'x',
      rawRecord: 'K1',
    });
    const kept = withoutKeys(b, ['K1', 'NOT-IN-BATCH']);
    expect(kept.rows.filter((r) => r !== null).map((r) => r.sourceKey)).toEqual(['B1', 'B2']);
    expect([...kept.at.keys()].sort()).toEqual(['B1', 'B2']);
    expect(kept.earlier.has('K1')).toBe(false);
    // line 2 was a duplicate of line 4 already; line 4 is one now
    expect(kept.duplicates).toBe(2);
    expect(kept.errors).toHaveLength(1);
    expect(kept.lines).toBe(4);
    // the batch itself is unchanged: a retried transaction stages it again
    expect(b.rows.filter((r) => r !== null)).toHaveLength(3);
    expect(b.duplicates).toBe(1);
  });

  it('no key to drop: the same lines', () => {
    const b = newBatch();
    addRow(b, row('A', 2, '1.00'), { raw: 'A' });
    expect(withoutKeys(b, []).rows).toEqual(b.rows);
  });
});
