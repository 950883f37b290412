/**
 * A workbook's shared strings as the xlsx reader keeps them: compactly (their UTF-8 bytes, not a
 * JS string each), every cell reading as it did from exceljs's own cache: plain, non-ASCII, rich
 * text, an empty <si/>, an index past the last string.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { openByteSource } from '../../src/input/gzip.js';
import { openSheet } from '../../src/input/formats/xlsx-sheet.js';
import { SharedStrings } from '../../src/input/formats/xlsx-strings.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';
import { writeTestFile } from '../support/files.js';
import { readItems } from '../support/read-items.js';
import { storedZip, workbookBytes, workbookParts } from '../support/xlsx.js';

describe('SharedStrings', () => {
  it('gives back every string as added, past its first buffer and index, and nothing past the last', () => {
    const strings = new SharedStrings();
    const rich = { richText: [{ text: 'A' }, { text: 'b' }] };
    const added: unknown[] = ['', 'Zürich ✓ 😀', null, rich, 'lone \uD800 surrogate', 'x'.repeat(70_000)];
    for (let i = 0; i < 10_000; i++) added.push(`SRC-${String(i).padStart(9, '0')}`);
    for (const value of added) strings.add(value);
    expect(strings.size).toBe(added.length);
    added.forEach((value, i) => expect(strings.get(i)).toBe(value));
    for (const index of [-1, added.length, Number.NaN]) expect(strings.get(index)).toBeUndefined();
  });
});

const profile = parseProfileText(
  `version: 1
format: xlsx
columns:
  source_key: { column: Key }
  customer_id: { column: Customer }
  order_date: { column: Date }
  amount: { column: Amount }
  currency: { column: Currency, default: EUR }
`,
  'p.yaml',
  'p',
);

describe('the xlsx reader with shared strings', () => {
  it('reads each kind of shared string as exceljs caches it', async () => {
    const parts = await workbookParts([
      {
        name: 'Orders',
        rows: [
          ['Key', 'Customer', 'Date', 'Amount', 'Currency'],
          ['Zürich-✓-😀', 7, '2026-01-02', 10, 'USD'],
          ['RICH', 8, '2026-01-03', 11, 'EMPTY'],
          ['K3', 9, '2026-01-04', 12, 'PAST'],
        ],
      },
    ]);
    const edited = parts.map((p) => {
      if (p.name === 'xl/sharedStrings.xml')
        return {
          ...p,
          data: Buffer.from(
            p.data
              .toString()
              .replace('<si><t>RICH</t></si>', '<si><r><t>RI</t></r><r><rPr><b/></rPr><t>CH</t></r></si>')
              .replace('<si><t>EMPTY</t></si>', '<si/>'),
          ),
        };
      // the cell of PAST refers to a string past the last one
      if (p.name === 'xl/worksheets/sheet1.xml') {
        const strings = parts.find((q) => q.name === 'xl/sharedStrings.xml')?.data.toString() ?? '';
        const index = [...strings.matchAll(/<si>.*?<\/si>/g)].findIndex((m) => m[0] === '<si><t>PAST</t></si>');
        expect(index).toBeGreaterThan(0);
        return { ...p, data: Buffer.from(p.data.toString().replace(`<v>${index}</v>`, '<v>99999</v>')) };
      }
      return p;
    });
    const items = await readItems(writeTestFile(storedZip(edited), 'w.xlsx'), { encoding: 'utf-8', delimiter: ',', profile });
    expect(items.map((i) => (i.kind === 'record' ? [i.lineNo, i.fields.source_key, i.fields.currency, i.raw] : i.kind))).toEqual([
      [2, 'Zürich-✓-😀', 'USD', 'Zürich-✓-😀,7,2026-01-02,10,USD'],
      [3, 'RICH', 'EUR', 'RICH,8,2026-01-03,11'],
      [4, 'K3', 'EUR', 'K3,9,2026-01-04,12'],
    ]);
  });

  it('keeps 100,000 distinct strings in far less heap than a JS string each (about 70 bytes)', async () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const rows = [['Key'], ...Array.from({ length: 100_000 }, (_, i) => [`SRC-${String(i).padStart(9, '0')}`])];
    const path = writeTestFile(await workbookBytes([{ name: 'Orders', rows }]), 'many.xlsx');
    const heldBy = async (file: string) => {
      gc();
      const before = process.memoryUsage().heapUsed;
      const source = openByteSource(file, { gzip: false, from: 0 });
      const reading = await openSheet(file, source, 1, () => false);
      gc();
      const held = process.memoryUsage().heapUsed - before;
      // the shared strings are read before the first row: the reading holds them now
      const first = await reading.rows.next();
      expect(first.done === true ? null : first.value.cells[0]?.text).toBe('Key');
      reading.close();
      source.close();
      return held;
    };
    // exceljs loaded, its modules' heap not counted
    await heldBy(writeTestFile(await workbookBytes([{ name: 'Orders', rows: [['Key']] }]), 'one.xlsx'));
    expect(await heldBy(path)).toBeLessThan(2.5 * 1024 * 1024);
  }, 60_000);
});
