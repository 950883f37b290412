/**
 * A resumed load's batch without the keys a load begun after it staged (src/pipeline/stage-batch.ts,
 * withoutKeys): those lines are not staged, counted as duplicates, their error-log rows kept.
 */
import { describe, expect, it } from 'vitest';
import type { StageInput } from '../../src/engine/types.js';
import { memoryLogger } from '../support/memory-logger.js';
import { addRow, newBatch, withoutKeys, yieldToLaterLoads } from '../../src/pipeline/stage-batch.js';

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

describe('yieldToLaterLoads', () => {
  function batch(): ReturnType<typeof newBatch> {
    const b = newBatch();
    addRow(b, row('K1', 2, '1.00'), { raw: 'K1' });
    addRow(b, row('B1', 3, '1.00'), { raw: 'B1' });
    b.lines = 2;
    b.endLine = 3;
    return b;
  }
  it('a resumed load: asks for the keys of loads begun after it, and says it left them out', async () => {
    const asked: unknown[] = [];
    const tx = {
      laterLoadKeys: (loadId: number, keys: string[], except?: number[]) => (asked.push([loadId, keys, except]), Promise.resolve(['K1'])),
    };
    const log = memoryLogger('info');
    const kept = await yieldToLaterLoads(tx, 4, batch(), log.logger);
    expect(asked).toEqual([[4, ['K1', 'B1'], []]]);
    expect(kept.rows.filter((r) => r !== null).map((r) => r.sourceKey)).toEqual(['B1']);
    expect(log.records.map((r) => r.msg)).toEqual(['1 line(s) of resumed load 4 not staged: a load begun after it staged their keys']);
  });

  it("a file of a set staged again: asks from the set's load of it, without the loads that are not later", async () => {
    const asked: unknown[] = [];
    const tx = {
      laterLoadKeys: (loadId: number, keys: string[], except?: number[]) => (asked.push([loadId, keys, except]), Promise.resolve(['K1'])),
    };
    const log = memoryLogger('info');
    await yieldToLaterLoads(tx, 20, batch(), log.logger, { began: 1, except: [3, 20] });
    expect(asked).toEqual([[1, ['K1', 'B1'], [3, 20]]]);
    expect(log.records.map((r) => r.msg)).toEqual([
      "1 line(s) of load 20 not staged: it stages again a file its set's load 1 began, and a load begun after that one staged their keys",
    ]);
  });

  it('an engine that cannot tell (Oracle): the batch as it is', async () => {
    const b = batch();
    expect(await yieldToLaterLoads({}, 20, b, memoryLogger('info').logger, { began: 1, except: [] })).toBe(b);
  });
});
