/**
 * guess on a workbook whose totals row fills every column the records fill: only the totals-row
 * rule (control.ts, for a workbook read to its end) sets it apart, not a field count.
 */
import { expect, it } from 'vitest';
import { guessProfile } from '../../src/input/guess/index.js';
import { writeTestFile } from '../support/files.js';
import { workbookBytes } from '../support/xlsx.js';

it('a workbook’s totals row as wide as its records: set apart, left out by when: and proposed as the control trailer', async () => {
  const rows = [
    ['Order No', 'Customer', 'Order Date', 'Amount', 'Currency'],
    ['A-1', '501', '2026-12-01', 12.5, 'EUR'],
    ['A-2', '502', '2026-12-02', 3, 'EUR'],
    ['Total', '-', '-', 15.5, 'EUR'],
  ];
  const g = await guessProfile(writeTestFile(await workbookBytes([{ name: 'Orders', rows }]), 'wide-totals.xlsx'));
  expect(g.yaml).toContain(
    '# 1 line(s) after the last record (a trailer: its field count differs): "Total,-,-,15.5,EUR"\nwhen: { column: "Order No", not_in: ["Total"] }   # leaves the trailer out (the key column)\n',
  );
  expect(g.yaml).toContain('control:\n  trailer: { column: "A", equals: "Total" }\n  sum: { column: "D" }\n');
});
