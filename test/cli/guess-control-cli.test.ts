/**
 * guess proposes the control records it sees, and the draft it writes loads, on PGlite and on
 * server PostgreSQL (when ORDER_LOADER_TEST_PG is set): a CSV header record before the column
 * names (examples/profiles/BANKH_20261201.csv), a JSON Lines trailer object
 * (examples/profiles/SHOP_20261201.jsonl), a workbook's totals row under the orders. Each file
 * loads with its draft (exit 0); a copy short of an order is HELD by the same draft (exit 1).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { REPO_ROOT, runCli } from '../support/cli-run.js';
import { cliTargets, type CliDb } from '../support/cli-targets.js';
import { tempDir } from '../support/files.js';
import { NEEDS, unavailable } from '../support/requirements.js';
import { workbookBytes, type SheetCell } from '../support/xlsx.js';

const example = (name: string) => join(REPO_ROOT, 'examples/profiles', name);

/** The lines of an example with its keys renamed (a copy is a new load of new orders), less the line `drop` (0-based). */
function copyOf(name: string, from: string, to: string, drop?: number): string {
  const lines = readFileSync(example(name), 'utf8').split('\n');
  return lines
    .filter((_, i) => i !== drop)
    .join('\n')
    .replaceAll(from, to);
}

/**
 * Writes a copy of an example (its own name) with its keys renamed `keys[0]` → `keys[1]`, and a
 * copy named `short` with them renamed to `keys[2]` less its line `drop`; their names.
 */
function copies(name: string, short: string, keys: [string, string, string], drop: number): (dir: string) => Promise<string[]> {
  return (dir) => {
    writeFileSync(join(dir, name), copyOf(name, keys[0], keys[1]));
    writeFileSync(join(dir, short), copyOf(name, keys[0], keys[2], drop));
    return Promise.resolve([name, short]);
  };
}

async function sheet(file: string, prefix: string, drop?: number): Promise<void> {
  const orders: SheetCell[][] = [
    [`${prefix}-1`, 501, '2026-12-01', 1200, 'JPY'],
    [`${prefix}-2`, 502, '2026-12-01', 34.5, 'JPY'],
    [`${prefix}-3`, 503, '2026-12-02', 0, 'JPY'],
  ];
  const rows: SheetCell[][] = [
    ['Order No', 'Customer', 'Order Date', 'Amount', 'Currency'],
    ...orders.filter((_, i) => i !== drop),
    ['Total', 3, '', { formula: 'SUM(D2:D4)', result: 1234.5 }],
  ];
  writeFileSync(file, await workbookBytes([{ name: 'Orders', rows }]));
}

describe.skipIf(unavailable(NEEDS.cli)).each(cliTargets('guessctl'))('guess proposes control records on $kind', (target) => {
  let db: CliDb | undefined;
  afterEach(async () => {
    await db?.dispose();
    db = undefined;
  });

  /** guess the file into a draft beside it; the draft's text. */
  async function draft(file: string, yaml: string): Promise<string> {
    const guessed = await runCli(['guess', file, '--log-level', 'silent']);
    expect(guessed.code, guessed.stderr).toBe(0);
    writeFileSync(yaml, guessed.stdout);
    return guessed.stdout;
  }

  it.each([
    {
      shape: 'a CSV header record before the column names',
      write: copies('BANKH_20261201.csv', 'BANKH_20261202.csv', ['CB-', 'GB-', 'GC-'], 4),
      evidence: [
        '# control: the first line (H,20261201,3,1234.50, before the column names) looks like a header record: field 3 ("3") equals the number of data lines (3); field 4 ("1234.50") equals the sum of the amounts (1234.50)',
        'control:\n  header: { column: 1, equals: "H" }\n  count: { column: 3 }\n  sum: { column: 4 }\n',
      ],
      held: /header \(line 1\) states count 3, sum 1234\.50; read count 2, sum 1234\.50/,
    },
    {
      shape: 'a JSON Lines trailer object',
      write: copies('SHOP_20261201.jsonl', 'SHOP_20261202.jsonl', ['"JS-', '"GS-', '"GT-'], 1),
      evidence: [
        '# control: the last object ({"type":"trailer","records":3,"amount_sum":1234.50}) looks like a trailer record: path "records" ("3") equals the number of orders before it (3); path "amount_sum" ("1234.50") equals the sum of the amounts (1234.50)',
        'control:\n  trailer: { column: "type", equals: "trailer" }\n  count: { column: "records" }\n  sum: { column: "amount_sum" }\n',
      ],
      held: /trailer \(line 3\) states count 3, sum 1234\.50; read count 2, sum 1200\.00/,
    },
    {
      shape: "a workbook's totals row",
      write: async (dir: string) => {
        await sheet(join(dir, 'PARTNER_20261201.xlsx'), 'GW');
        await sheet(join(dir, 'PARTNER_20261202.xlsx'), 'GX', 1);
        return ['PARTNER_20261201.xlsx', 'PARTNER_20261202.xlsx'];
      },
      evidence: [
        '# control: the last row (Total,3,,1234.5,) looks like a trailer record: column B ("3") equals the number of data rows (3); column D ("1234.5") equals the sum of the amounts (1234.50)',
        'control:\n  trailer: { column: "A", equals: "Total" }\n  count: { column: "B" }\n  sum: { column: "D" }\n',
      ],
      held: /trailer \(row 4\) states count 3, sum 1234\.5; read count 2, sum 1200\.00/,
    },
  ])('$shape: the draft says its evidence and loads the file (exit 0); a copy short of an order is HELD (exit 1)', async (c) => {
    db = await target.create();
    const dir = tempDir();
    const [good, short] = (await c.write(dir)).map((n) => join(dir, n)) as [string, string];
    const yaml = join(dir, 'draft.yaml');
    const text = await draft(good, yaml);
    for (const line of c.evidence) expect(text).toContain(line);
    const quiet = ['--profile', yaml, '--db', db.url, '--log-level', 'silent'];
    const loaded = await runCli(['load', good, ...quiet]);
    expect(loaded.code, loaded.stdout + loaded.stderr).toBe(0);
    expect(loaded.stdout).toContain('control totals agree');
    expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: 3 }]);
    const held = await runCli(['load', short, ...quiet]);
    expect(held.code, held.stdout + held.stderr).toBe(1);
    expect(held.stdout).toMatch(c.held);
    expect(held.stdout).toContain('NOT MERGED');
    expect(await db.sql('SELECT count(*)::int AS n FROM orders')).toEqual([{ n: 3 }]);
  });
});
