/**
 * Staging counts a batch's rejected lines before its COMMIT (StageFileOptions.onBatchCounted):
 * processing beside staging can claim the batch's rows as soon as it commits, and
 * src/pipeline/process.ts rolls back a chunk claimed past --max-errors, so the count must already
 * hold them by then. Over the recording connection, the table model answering.
 */
import { describe, expect, it } from 'vitest';
import { createOracleEngineWith } from '../../src/engine/oracle/index.js';
import { openOrderFile } from '../../src/input/order-file.js';
import { DEFAULT_RETRY } from '../../src/pipeline/retry.js';
import { stageFile } from '../../src/pipeline/stage.js';
import { HEADER, writeTestFile } from '../support/files.js';
import { memoryLogger } from '../support/memory-logger.js';
import { constants, RecordingDatabase } from './recording-connection.js';
import { TableModel } from './table-model.js';

describe('staging counts a batch before its COMMIT', () => {
  it('gives each batch’s counts, rejected lines included, inside its transaction', async () => {
    const db = new RecordingDatabase(new TableModel().script());
    const engine = createOracleEngineWith(db, constants);
    // batches of 2 lines: the second holds a line a field short (rejected), the third a line without a key
    const lines = ['A,1,2026-01-01,10,JPY', 'B,2,2026-01-01,20,JPY', 'C,3,2026-01-01', 'D,4,2026-01-01,40,JPY', ',5,2026-01-01,50,JPY'];
    const file = await openOrderFile(writeTestFile(`${HEADER}\n${lines.join('\n')}\n`), { encoding: 'utf-8', delimiter: ',' });
    const seen: Array<{ read: number; rejected: number; commits: number }> = [];
    const commits = () => db.trace().filter((t) => t.endsWith(':commit')).length;
    const result = await stageFile(engine, 41, file, {
      loadId: 41,
      batchSize: 2,
      retry: DEFAULT_RETRY,
      logger: memoryLogger().logger,
      onBatchCounted: (counts) => seen.push({ read: counts.read, rejected: counts.rejected, commits: commits() }),
    });
    expect(result.counts.rejected).toBe(2);
    // before the first, second and third COMMIT: the file's counts as each batch will leave them
    expect(seen).toEqual([
      { read: 2, rejected: 0, commits: 0 },
      { read: 4, rejected: 1, commits: 1 },
      { read: 5, rejected: 2, commits: 2 },
    ]);
    expect(commits()).toBe(3);
  });
});
