/**
 * guess: which column the draft proposes for each order field (src/input/guess/fields.ts), rule
 * by rule: how a header name is compared with a field's names, then how names and values are
 * weighed when they agree, disagree or tie; the value rules alone (a header-less file), their
 * bounds (80 % of the values), and the evidence each proposal carries. Written against the
 * survivors of the reader group's StrykerJS run (docs/mutation.md, "Scores of the reader group").
 */
import { describe, expect, it } from 'vitest';
import { FIELDS, nameSimilarity, normalizeName, proposeFields, type Field, type GuessColumn } from '../../src/input/guess/fields.js';

const named = (index: number, name: string | null, values: string[]): GuessColumn => ({ index, name, at: null, values });
const col = (index: number, values: string[]): GuessColumn => named(index, null, values);

/** What a reader of the draft sees of each proposal: the field, the column's position, why. */
const chosen = (columns: GuessColumn[], skip?: number[]) =>
  Object.fromEntries(
    proposeFields(columns, skip === undefined ? {} : { skip }).map((p) => [p.field, p.column === null ? null : [p.column.index, ...p.why]]),
  ) as Record<Field, [number, ...string[]] | null>;

describe('nameSimilarity', () => {
  it('compares names without case, spaces, dots, underscores, #, hyphens, slashes, colons and parentheses, after NFKC', () => {
    expect(normalizeName(' Order-No.#_/:(x) ')).toBe('ordernox');
    expect(normalizeName('ＡＭＯＵＮＴ')).toBe('amount');
    expect(normalizeName('Währung')).toBe('währung');
    expect(nameSimilarity('ORDER_NO.', 'source_key')).toEqual({ score: 1, like: 'order no' });
    expect(nameSimilarity('Ｔｏｔａｌ', 'amount')).toEqual({ score: 1, like: 'total' });
  });

  it('is 1 for a name equal to one of the field’s names, and says which (English, German, Japanese; a few of each)', () => {
    const equal: Array<[string, Field, string]> = [
      ['Order Number', 'source_key', 'order number'],
      ['order id', 'source_key', 'order id'],
      ['Reference', 'source_key', 'reference'],
      ['Document No.', 'source_key', 'document no'],
      ['Bestellnummer', 'source_key', 'bestellnummer'],
      ['Auftragsnr.', 'source_key', 'auftragsnr'],
      ['Belegnr', 'source_key', 'belegnr'],
      ['受注番号', 'source_key', '受注番号'],
      ['伝票番号', 'source_key', '伝票番号'],
      ['Customer No', 'customer_id', 'customer no'],
      ['Client', 'customer_id', 'client'],
      ['Account', 'customer_id', 'account'],
      ['Kundennr', 'customer_id', 'kundennr'],
      ['Debitor', 'customer_id', 'debitor'],
      ['顧客コード', 'customer_id', '顧客コード'],
      ['得意先', 'customer_id', '得意先'],
      // "order date" is in the list too, but "order_date" before it reads the same
      ['Order Date', 'order_date', 'order_date'],
      ['Date', 'order_date', 'date'],
      ['Bestelldatum', 'order_date', 'bestelldatum'],
      ['Belegdatum', 'order_date', 'belegdatum'],
      ['注文日', 'order_date', '注文日'],
      ['伝票日付', 'order_date', '伝票日付'],
      ['Total', 'amount', 'total'],
      ['Value', 'amount', 'value'],
      ['Betrag', 'amount', 'betrag'],
      ['Summe', 'amount', 'summe'],
      ['合計金額', 'amount', '合計金額'],
      ['税込金額', 'amount', '税込金額'],
      ['CCY', 'currency', 'ccy'],
      ['Currency', 'currency', 'currency'],
      ['Waehrung', 'currency', 'waehrung'],
      ['Devise', 'currency', 'devise'],
      ['通貨', 'currency', '通貨'],
      ['通貨コード', 'currency', '通貨コード'],
    ];
    for (const [name, field, like] of equal) expect(nameSimilarity(name, field), `${name} → ${field}`).toEqual({ score: 1, like });
  });

  it('is 0.7 for a name holding one of the field’s names (the first such name of the list), or the start of one (3 characters or more)', () => {
    // holding one: the first of the list that it holds is named
    expect(nameSimilarity('Total Amount', 'amount')).toEqual({ score: 0.7, like: 'amount' });
    expect(nameSimilarity('Net Total', 'amount')).toEqual({ score: 0.7, like: 'total' });
    expect(nameSimilarity('Order Ref', 'source_key')).toEqual({ score: 0.7, like: 'order' });
    // two characters are enough for a name held (Japanese names are short)
    expect(nameSimilarity('顧客名', 'customer_id')).toEqual({ score: 0.7, like: '顧客' });
    expect(nameSimilarity('請求金額', 'amount')).toEqual({ score: 0.7, like: '金額' });
    // the start of a name: 3 characters or more, at the start only
    expect(nameSimilarity('Bestell', 'source_key')).toEqual({ score: 0.7, like: 'bestellnr' });
    expect(nameSimilarity('Kun', 'customer_id')).toEqual({ score: 0.7, like: 'kunde' });
    expect(nameSimilarity('Ku', 'customer_id')).toEqual({ score: 0, like: null });
    expect(nameSimilarity('nummer', 'source_key')).toEqual({ score: 0, like: null });
  });

  it('is 0 with no name for an unknown name, an empty one, or one of punctuation only', () => {
    expect(nameSimilarity('Bemerkung', 'amount')).toEqual({ score: 0, like: null });
    expect(nameSimilarity('Region', 'customer_id')).toEqual({ score: 0, like: null });
    expect(nameSimilarity('', 'source_key')).toEqual({ score: 0, like: null });
    expect(nameSimilarity(' -.# ', 'currency')).toEqual({ score: 0, like: null });
    // a field's names are its own: a date is no amount
    expect(nameSimilarity('Datum', 'amount')).toEqual({ score: 0, like: null });
  });
});

describe('proposeFields: names first', () => {
  it('takes each field from the column its header names, saying which name it is or is like, when the values agree', () => {
    const p = chosen([
      named(1, 'Bestellnr', ['B-1', 'B-2', 'B-3']),
      named(2, 'Kunde', ['7', '8', '7']),
      named(3, 'Datum', ['01.12.2026', '02.12.2026', '03.12.2026']),
      named(4, 'Gesamtbetrag', ['1,50', '2,00', '3,25']),
      named(5, 'Währung', ['EUR', 'EUR', 'CHF']),
    ]);
    expect(p).toEqual({
      source_key: [1, 'name "Bestellnr" is "bestellnr"'],
      customer_id: [2, 'name "Kunde" is "kunde"'],
      // a date chosen by its name also says how many values read as dates
      order_date: [3, 'name "Datum" is "datum"', '3 of 3 values read as dates'],
      amount: [4, 'name "Gesamtbetrag" is like "betrag"'],
      currency: [5, 'name "Währung" is "währung"'],
    });
  });

  it('follows the names where the values say otherwise: the named column, not the one the values would give', () => {
    // by values alone: the key would be column 2 (all distinct), the customer column 1 (digits),
    // the date column 4, the amount column 3 (fractions), the currency column 5
    const columns = [
      named(1, 'Amount', ['10', '20', '10']),
      named(2, 'Customer', ['C-1', 'C-2', 'C-3']),
      named(3, 'Order No', ['1.5', '2.5', '3.5']),
      named(4, 'Currency', ['2026-12-01', '2026-12-02', '2026-12-03']),
      named(5, 'Date', ['EUR', 'USD', 'EUR']),
    ];
    expect(chosen(columns)).toEqual({
      source_key: [3, 'name "Order No" is "order no"'],
      customer_id: [2, 'name "Customer" is "customer"'],
      order_date: [5, 'name "Date" is "date"', '0 of 3 values read as dates'],
      amount: [1, 'name "Amount" is "amount"'],
      currency: [4, 'name "Currency" is "currency"'],
    });
    // without the names, the values decide
    expect(chosen(columns.map((c) => ({ ...c, name: null })))).toEqual({
      source_key: [2, 'the first column whose values are all distinct'],
      customer_id: [1, 'the first column left whose values are digits'],
      order_date: [4, '3 of 3 values read as dates'],
      amount: [3, '3 of 3 values read as amounts (fractions, signs or separators)'],
      currency: [5, '3 of 3 values are currency codes (EUR)'],
    });
  });

  it('uses the names of a header with some columns unnamed (null) too', () => {
    const p = chosen([col(1, ['A', 'B', 'C']), named(2, 'Betrag', ['5', '6', '7']), col(3, ['1.5', '2.5', '3.5'])]);
    expect(p.amount).toEqual([2, 'name "Betrag" is "betrag"']);
  });

  it('gives a field to the best name first: an equal name before a name held; of several amounts, the total', () => {
    const p = chosen([
      named(1, 'Total Amount', ['1.00', '2.00']),
      named(2, 'Amount', ['3.00', '4.00']),
      named(3, 'Key Date', ['x', 'y']),
      named(4, 'Order Date', ['2026-01-01', '2026-01-02']),
    ]);
    // two columns of amounts, no sum between them: the one whose name says total, the other listed beside it
    expect(p.amount).toEqual([1, 'of the amounts "Total Amount", "Amount", the name "Total Amount" says total']);
    expect(proposeFields([named(1, 'Total Amount', ['1.00']), named(2, 'Amount', ['3.00'])])[3]?.others).toEqual([
      named(2, 'Amount', ['3.00']),
    ]);
    expect(p.order_date).toEqual([4, 'name "Order Date" is "order_date"', '2 of 2 values read as dates']);
    // the columns that lost keep what else their names are like: "Key Date" holds "key"
    expect(p.source_key).toEqual([3, 'name "Key Date" is like "key"']);
  });

  it('decides a tie of amounts by the evidence, or leaves it open; other ties by the column’s position, then the order of the fields', () => {
    // two columns equally like the amount: the gross one is the order's total
    const dup = chosen([named(1, 'Net Amount', ['1.50', '2.50']), named(2, 'Gross Amount', ['1.80', '3.00']), named(3, 'x', ['A', 'B'])]);
    expect(dup.amount).toEqual([2, 'of the amounts "Net Amount", "Gross Amount", the name "Gross Amount" says total']);
    // the total is the sum of two others on every record, whatever the names
    const sum = chosen([
      named(1, 'Amount 1', ['1.50', '2.50']),
      named(2, 'Amount 2', ['0.30', '0.50']),
      named(3, 'Amount 3', ['1.80', '3.00']),
      named(4, 'x', ['A', 'B']),
    ]);
    expect(sum.amount).toEqual([3, '"Amount 3" = "Amount 1" + "Amount 2" on every record (2): an order\'s amount is its total']);
    // the same name twice: nothing tells them apart, an open choice naming both
    const twice = proposeFields([named(1, 'Betrag', ['1,50', '2,50']), named(2, 'Betrag', ['1,80', '1,80']), named(3, 'Nr', ['A', 'B'])]);
    expect(twice[3]).toMatchObject({
      column: null,
      open: 'amount: "Betrag", "Betrag" all hold amounts and nothing tells which is the order\'s total',
    });
    expect(twice[0]?.column?.index).toBe(3);
    // one name like two fields alike ("order" and "customer" held): the first field of FIELDS
    const both = chosen([named(1, 'Customer Order', ['1', '2']), named(2, 'x', ['5', '5']), named(3, 'y', ['1.5', '2.5'])]);
    expect(both.source_key).toEqual([1, 'name "Customer Order" is like "order"']);
    expect(both.customer_id).toEqual([2, 'the first column left whose values are digits']);
  });

  it('gives a column to one field only, and a field one column only', () => {
    // "Order Date" is like the key too ("order" in it): it is the date, the key comes from another column
    const p = chosen([named(1, 'Order Date', ['2026-01-01', '2026-01-02']), named(2, 'Order', ['K1', 'K2']), named(3, 'y', ['K3', 'K4'])]);
    expect(p.order_date?.[0]).toBe(1);
    expect(p.source_key).toEqual([2, 'name "Order" is "order"']);
  });

  it('leaves the columns of `skip` out (a record type column), by name and by values', () => {
    const columns = [named(1, 'Order No', ['D', 'D']), named(2, 'x', ['K1', 'K2']), named(3, 'y', ['7', '8'])];
    expect(chosen(columns, [1]).source_key).toEqual([2, 'the first column whose values are all distinct']);
    expect(chosen(columns).source_key).toEqual([1, 'name "Order No" is "order no"']);
    expect(chosen([col(1, ['7', '8']), col(2, ['9', '9']), col(3, ['1.5', '2.5'])], [1]).customer_id).toEqual([
      2,
      'the first column left whose values are digits',
    ]);
  });

  it('does not let the value rules take a field a name gave, nor overwrite it', () => {
    const p = chosen([
      named(1, 'Order No', ['K1', 'K2', 'K3']),
      named(2, 'Kunde', ['A', 'B', 'C']),
      named(3, 'Datum', ['01.12.2026', 'x', 'y']),
      named(4, 'Betrag', ['n/a', '1', '2']),
      named(5, 'Währung', ['EUR', '', '']),
      named(6, 'Other date', ['2026-12-01', '2026-12-02', '2026-12-03']),
      named(7, 'Other code', ['USD', 'USD', 'USD']),
      named(8, 'Other number', ['1.5', '2.5', '3.5']),
      named(9, 'Other key', ['7', '8', '9']),
    ]);
    expect(p).toEqual({
      source_key: [1, 'name "Order No" is "order no"'],
      customer_id: [2, 'name "Kunde" is "kunde"'],
      order_date: [3, 'name "Datum" is "datum"', '1 of 3 values read as dates'],
      amount: [4, 'name "Betrag" is "betrag"'],
      currency: [5, 'name "Währung" is "währung"'],
    });
  });
});

describe('proposeFields: values, for what no name gave (a header-less file)', () => {
  it('proposes the date from the one column whose values read as dates (80 % at least); of several that differ, none: an open choice', () => {
    const p = proposeFields([
      col(1, ['K1', 'K2', 'K3', 'K4', 'K5']),
      col(2, ['2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04', 'soon']),
      col(3, ['01.12.2026', '02.12.2026', '03.12.2026', '04.12.2026', '05.12.2026']),
    ]);
    expect(p[2]).toMatchObject({
      column: null,
      open: "order_date: column 2, column 3 all hold dates, and no header says which is the order's",
    });
    // 4 of 5 is enough; 3 of 4 is not
    expect(chosen([col(1, ['x', 'y']), col(2, ['2026-12-01', '2026-12-02', '2026-12-03', '2026-12-04', 'soon'])]).order_date).toEqual([
      2,
      '4 of 5 values read as dates',
    ]);
    expect(chosen([col(1, ['x', 'y']), col(2, ['2026-12-01', '2026-12-02', '2026-12-03', 'soon'])]).order_date).toBeNull();
    // empty values are not counted; a column of empty values is no date
    expect(chosen([col(1, ['', '', '']), col(2, ['2026-12-01', '', '2026-12-03'])]).order_date).toEqual([2, '2 of 2 values read as dates']);
  });

  it('proposes the currency from a column of 80 % three-capital codes with a known one among them', () => {
    expect(chosen([col(1, ['x', 'y']), col(2, ['EUR', 'USD', 'USD', 'CHF', 'n/a'])]).currency).toEqual([
      2,
      '4 of 5 values are currency codes (USD)',
    ]);
    // 3 of 4 codes: not enough
    expect(chosen([col(1, ['EUR', 'EUR', 'EUR', 'n/a'])]).currency).toBeNull();
    // one known code among other values: not enough either
    expect(chosen([col(1, ['EUR', 'ab', 'cd', 'ef', 'gh'])]).currency).toBeNull();
    // codes, but none known (country codes)
    expect(chosen([col(1, ['DEU', 'FRA', 'DEU'])]).currency).toBeNull();
    expect(chosen([col(1, ['DEU', 'FRA', 'DEU']), col(2, ['', '', '']), col(3, ['JPY', 'JPY', ''])]).currency).toEqual([
      3,
      '2 of 2 values are currency codes (JPY)',
    ]);
  });

  it('proposes as the amount the first column of numbers with a fraction, a sign or a group separator, else the only column of numbers', () => {
    const whole = (i: number) => col(i, ['7', '8', '9']);
    expect(chosen([col(1, ['K1', 'K2', 'K3']), col(2, ['1.50', '2', '3']), col(3, ['-4', '5', '6']), whole(4)]).amount).toEqual([
      2,
      '3 of 3 values read as amounts (fractions, signs or separators)',
    ]);
    expect(chosen([col(1, ['K1', 'K2', 'K3']), col(2, ['-4', '5', '6']), whole(3)]).amount).toEqual([
      2,
      '3 of 3 values read as amounts (fractions, signs or separators)',
    ]);
    expect(chosen([col(1, ['K1', 'K2', 'K3']), col(2, ['1,234,567', '5', '6']), whole(3)]).amount).toEqual([
      2,
      '3 of 3 values read as amounts (fractions, signs or separators)',
    ]);
    expect(chosen([col(1, ['K1', 'K2', 'K3']), col(2, ['▲4', '5', '6']), whole(3)]).amount?.[0]).toBe(2);
    // several columns of whole numbers and no name: nothing says which is the amount, an open choice naming them
    expect(proposeFields([col(1, ['K1', 'K2', 'K3']), whole(2), col(3, ['10', '20', '30'])])[3]).toMatchObject({
      column: null,
      open: 'amount: column 2, column 3 all hold whole numbers and no header says which is the amount',
    });
    expect(chosen([col(1, ['K1', 'K2', 'K3']), col(3, ['10', '20', '30'])]).amount).toEqual([
      3,
      '3 of 3 values read as numbers (the only column of numbers)',
    ]);
    // 80 % numbers at least
    expect(chosen([col(1, ['K1', 'K2']), col(2, ['1.5', '2.5', '3.5', '4.5', 'x'])]).amount).toEqual([
      2,
      '4 of 5 values read as amounts (fractions, signs or separators)',
    ]);
    expect(chosen([col(1, ['K1', 'K2']), col(2, ['1.5', '2.5', '3.5', 'x'])]).amount).toBeNull();
    expect(chosen([col(1, ['K1', 'K2']), col(2, ['1.5', 'x', 'y', 'z', 'w'])]).amount).toBeNull();
    expect(chosen([col(1, ['', ''])]).amount).toBeNull();
  });

  it('proposes as the key the first column whose values are all distinct, else the first whose values vary, saying so', () => {
    expect(chosen([col(1, ['A', 'B', 'A']), col(2, ['X1', 'X2', 'X3'])]).source_key).toEqual([
      2,
      'the first column whose values are all distinct',
    ]);
    // no column of distinct values: the first that varies, said to repeat
    expect(chosen([col(1, ['A', 'A', 'A']), col(2, ['B', 'C', 'B'])]).source_key).toEqual([
      2,
      'the first column left (its values repeat: check it)',
    ]);
    // an empty value: not all distinct; empty values do not make a column vary
    expect(chosen([col(1, ['A', 'A', '']), col(2, ['B', 'C', '']), col(3, ['D', 'E', 'D'])]).source_key).toEqual([
      2,
      'the first column left (its values repeat: check it)',
    ]);
    expect(chosen([col(1, ['', '', '']), col(2, ['Q', 'Q', 'Q'])]).source_key).toBeNull();
  });

  it('proposes as the customer the first column left of 80 % digits, empty values not counted', () => {
    const key = col(1, ['K1', 'K2', 'K3', 'K4', 'K5']);
    const amount = col(9, ['1.5', '2.5', '3.5', '4.5', '5.5']);
    expect(
      chosen([
        key,
        col(2, ['1A', '2B', '3C', '4D', '5E']),
        col(3, ['A1', 'B2', 'C3', 'D4', 'E5']),
        col(4, ['7', '8', '7', '', '9']),
        amount,
      ]),
    ).toMatchObject({
      customer_id: [4, 'the first column left whose values are digits'],
      amount: [9, '5 of 5 values read as amounts (fractions, signs or separators)'],
    });
    expect(chosen([key, col(2, ['7', '8', '7', '9', 'x']), amount]).customer_id).toEqual([
      2,
      'the first column left whose values are digits',
    ]);
    expect(chosen([key, col(2, ['7', '8', '7', 'x']), amount]).customer_id).toBeNull();
    expect(chosen([key, col(2, ['', '', '', '', '']), amount]).customer_id).toBeNull();
  });

  it('leaves a field without a column when nothing fits: no column, no reason, no evidence', () => {
    const p = proposeFields([col(1, ['a', 'b'])]);
    expect(p.map((f) => f.field)).toEqual([...FIELDS]);
    expect(p).toEqual([
      { field: 'source_key', column: col(1, ['a', 'b']), why: ['the first column whose values are all distinct'] },
      { field: 'customer_id', column: null, why: [] },
      { field: 'order_date', column: null, why: [] },
      { field: 'amount', column: null, why: [] },
      { field: 'currency', column: null, why: [] },
    ]);
    expect(proposeFields([])).toEqual(FIELDS.map((field) => ({ field, column: null, why: [] })));
  });

  it('gives the date, amount and currency proposals the evidence of their values, also when a name chose them, and the others none', () => {
    const p = proposeFields([
      named(1, 'Order No', ['K1', 'K2']),
      named(2, 'Kunde', ['7', '8']),
      named(3, 'Datum', ['01.12.2026', '02.12.2026']),
      named(4, 'Betrag', ['1,50', '-2,00']),
      named(5, 'Whg', ['EUR', '']),
    ]);
    const [key, customer, date, amount, currency] = p;
    expect(Object.keys(key ?? {})).toEqual(['field', 'column', 'why']);
    expect(Object.keys(customer ?? {})).toEqual(['field', 'column', 'why']);
    expect(date).toMatchObject({ date: { chosen: ['DD.MM.YYYY'], of: 2, readable: 2 } });
    expect(date).not.toHaveProperty('number');
    expect(amount).toMatchObject({ number: { decimal: ',', negative: ['-'], numeric: 2 } });
    expect(amount).not.toHaveProperty('date');
    expect(amount?.why).toEqual(['name "Betrag" is "betrag"']);
    expect(currency).toMatchObject({ currency: { codes: 1, of: 1, top: 'EUR' }, why: ['name "Whg" is "whg"'] });
    expect(currency).not.toHaveProperty('number');
  });
});
