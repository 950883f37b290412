/**
 * `stage` holds the keys on more than one line of its files too, on every engine: a `stage`
 * interrupted before its staging ends leaves them HELD, so a `process` run before its rerun
 * never merges an earlier line of a key whose last line was not staged yet.
 */
import { describe, expect, it } from 'vitest';
import { testTargets } from '../support/databases.js';
import { HEADER, writeTestFile } from '../support/files.js';

describe.each(testTargets())('stage interrupted, then process, then the rerun on $kind', (target) => {
  it('the repeated key stays HELD through the process and ends as its last line says', async () => {
    const db = await target.create();
    try {
      const lines = [HEADER, 'DUP,1,2026-01-01,100,JPY'];
      for (let i = 0; i < 3000; i++) lines.push(`K-${i},1,2026-01-01,1,JPY`);
      lines.push('DUP,1,2026-01-01,,JPY');
      const file = writeTestFile(`${lines.join('\n')}\n`);
      const { loader } = await db.open();
      const stop = new AbortController();
      await loader.stage([file], {
        batchSize: 200,
        signal: stop.signal,
        onStageProgress: (_file, _bytes, _size, read) => {
          if (read >= 1000) stop.abort();
        },
      });
      expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'DUP'")).toEqual([{ process_status: 'HELD' }]);
      const processed = await loader.process();
      expect(processed.process.claimed).toBeGreaterThan(0);
      expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'DUP'")).toEqual([{ n: 0 }]);

      const rerun = await loader.load([file], { batchSize: 200 });
      expect(rerun.files[0]?.resumedAt).not.toBeNull();
      expect(await db.sql("SELECT process_status FROM order_stage WHERE source_key = 'DUP'")).toEqual([{ process_status: 'ERROR' }]);
      expect(await db.sql("SELECT count(*) AS n FROM orders WHERE source_key = 'DUP'")).toEqual([{ n: 0 }]);
    } finally {
      await db.dispose();
    }
  });
});
