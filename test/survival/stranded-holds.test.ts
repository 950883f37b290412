/**
 * A load killed while it staged leaves the rows of its repeated keys HELD until a run that stages
 * the same file (the same bytes, read the same way) ends its staging. A corrected resend under the
 * same name is another file: a new load, which does not release the earlier load's rows that it
 * does not stage again. The run must say so (report, exit code 2, the metrics file), and the age
 * of the oldest waiting row must count HELD rows. PGlite always; server PostgreSQL too when
 * ORDER_LOADER_TEST_PG is set.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assertBuilt, runCli, sleep, startCli, survivalPath } from './harness.js';
import { SURVIVAL_TARGETS } from './targets.js';

const HEADER = 'source_key,customer_id,order_date,amount,currency';
const others = Array.from({ length: 1000 }, (_, i) => `B${String(i).padStart(4, '0')},2,2026-11-02,${i + 1}.00,JPY`);

/** The value of one sample of the metrics file (labels as written), or undefined. */
function sample(text: string, name: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe('survival: HELD rows of a killed load that a changed resend of its file does not release', () => {
  for (const target of SURVIVAL_TARGETS) {
    it(`${target.kind}: the rerun with a corrected file says the earlier load's rows are still HELD: report, exit 2, metrics`, async () => {
      assertBuilt();
      const db = await target.create();
      try {
        const base = survivalPath(`stranded-holds-${target.kind}`);
        const inbox = join(base, 'inbox');
        mkdirSync(inbox, { recursive: true });
        const file = join(inbox, 'a.csv');
        // K1 on the first and the last line: held from its first line until the file's staging ends
        writeFileSync(file, `${HEADER}\nK1,1,2026-11-01,100.00,JPY\n${others.join('\n')}\nK1,1,2026-11-01,150.00,JPY\n`);
        const killed = startCli(['load', inbox, '--db', db.url, '--settle', '0', '--batch-size', '100'], {
          env: { ORDER_LOADER_TEST_HOLD_AFTER: 'staged_checkpoint:2' },
        });
        expect(await killed.waitFor(/holding after staged_checkpoint #2/)).toBe(true);
        killed.child.kill('SIGKILL');
        await killed.done;
        await sleep(1100);

        // the sender's corrected resend: K1 is cancelled, the other lines as they were
        writeFileSync(file, `${HEADER}\n${others.join('\n')}\n`);
        const metrics = join(base, 'load.prom');
        const rerun = await runCli(['load', inbox, '--db', db.url, '--settle', '0', '--metrics-file', metrics]);
        expect(rerun.code, `${rerun.stdout}${rerun.stderr}`).toBe(2);
        expect(rerun.stdout).toMatch(/a\.csv: 1 row of load \d+ \(an earlier load of .*a\.csv, interrupted while staging\) is still HELD/);
        expect(rerun.stdout).toMatch(/order-loader recover --older-than/);
        const prom = readFileSync(metrics, 'utf8');
        expect(sample(prom, 'order_loader_last_run_stranded_held_rows')).toBe(1);
        expect(prom).toMatch(/order_loader_rows\{command="load",status="HELD"\} 1\n/);
        // the HELD row waits since the killed run started, more than a second ago
        expect(sample(prom, 'order_loader_oldest_waiting_row_age_seconds')).toBeGreaterThanOrEqual(1);

        // given up by the operator: the next run has nothing stranded to say
        const recovered = await runCli(['recover', '--older-than', '1ms', '--db', db.url]);
        expect(recovered.stdout).toMatch(/released 1 HELD row/);
        const again = await runCli(['load', inbox, '--db', db.url, '--settle', '0', '--metrics-file', metrics]);
        expect(again.stdout).not.toMatch(/still HELD/);
        expect(sample(readFileSync(metrics, 'utf8'), 'order_loader_last_run_stranded_held_rows')).toBe(0);
      } finally {
        await db.dispose();
      }
    }, 300_000);
  }
});
