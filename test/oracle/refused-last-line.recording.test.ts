/**
 * Oracle staging through the pipeline against the table model (test/oracle/table-model.ts): a line
 * a CHECK of the site's own refuses (ORA-02290) drops alone, as a line the reader rejects does.
 * The key keeps its last line the database took, at every batch size, whether the batch went
 * through the direct insert first (the default) or the batch table alone
 * (ORDER_LOADER_STAGE_DIRECT=off). Nothing runs on an Oracle Database: the refusals are the
 * model's, in the order Oracle checks an INSERT's row.
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

const REFUSED = 'ORA-02290: check constraint (LOADER.TEST_REFUSE_XXX) violated';

// as test/integration/refused-last-line.test.ts: each batch size puts a refused line in the batch
// of the line that must stay
const LINES = [
  'K,1,2026-01-01,10,JPY', // line 2
  'F1,2,2026-01-01,5,JPY', // line 3
  'K,3,2026-01-01,20,JPY', // line 4: K's last line the database takes
  'K,4,2026-01-01,12.50,XXX', // line 5: refused
  'N,5,2026-01-01,7,JPY', // line 6: N's last line the database takes
  'N,6,2026-01-01,70,XXX', // line 7: refused
  'M,7,2026-01-01,8,JPY', // line 8
  'M,8,2026-02-30,9,JPY', // line 9: a parse error, staged ERROR
  'M,9,2026-01-01,90,XXX', // line 10: refused
  'N,10,2026-01-01,71,XXX', // line 11: refused again
];

describe('Oracle staging (recording connection, table model): a line a CHECK refuses drops alone', () => {
  for (const stageDirect of [true, false]) {
    for (const batchSize of [1, 2, 3, 1000]) {
      it(`keeps the key's last line the database took (batch size ${batchSize}, direct insert ${stageDirect ? 'first' : 'off'})`, async () => {
        const model = new TableModel();
        model.siteChecks.push((r) => (r.currency === 'XXX' ? REFUSED : null));
        const engine = createOracleEngineWith(new RecordingDatabase(model.script()), constants, { stageDirect });
        const file = await openOrderFile(writeTestFile(`${HEADER}\n${LINES.join('\n')}\n`), { encoding: 'utf-8', delimiter: ',' });
        const result = await stageFile(engine, 41, file, { loadId: 41, batchSize, retry: DEFAULT_RETRY, logger: memoryLogger().logger });
        expect(result.counts).toMatchObject({ read: 10, inserted: 4, rejected: 5, duplicates: 2 });
        expect(
          model.stage
            .map((r) => [r.source_key, r.process_status, r.line_no, r.amount])
            .sort((a, b) => String(a[0]).localeCompare(String(b[0]))),
        ).toEqual([
          ['F1', 'READY', 3, 5],
          ['K', 'READY', 4, 20],
          ['M', 'ERROR', 9, null],
          ['N', 'READY', 6, 7],
        ]);
        expect(model.errorLog.map((r) => [r.line_no, r.source_key, r.phase, r.error_code, r.raw_record])).toEqual([
          [5, 'K', 'PARSE', 'ORA-02290', LINES[3]],
          [7, 'N', 'PARSE', 'ORA-02290', LINES[5]],
          [9, 'M', 'PARSE', 'PARSE_ORDER_DATE', LINES[7]],
          [10, 'M', 'PARSE', 'ORA-02290', LINES[8]],
          [11, 'N', 'PARSE', 'ORA-02290', LINES[9]],
        ]);
      });
    }
  }
});
