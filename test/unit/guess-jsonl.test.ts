/**
 * guess on JSON Lines: a draft of format: jsonl whose columns are paths into the objects (judged
 * by their last name: `total.currency` is a currency), numbers as written, and that loads as it
 * is; one JSON document is still refused in one line.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { UserError } from '../../src/errors.js';
import { guessFromSample, guessProfile } from '../../src/input/guess/index.js';
import { pathText } from '../../src/input/guess/json-sample.js';
import { parseProfileText } from '../../src/input/profile/load-profile.js';

describe('guess on JSON Lines', () => {
  it('drafts format: jsonl with each field by its path, and the draft checks as a profile', async () => {
    const guessed = await guessProfile('examples/profiles/web-orders.jsonl');
    expect(guessed).toMatchObject({ format: 'jsonl', name: 'web-orders', delimiter: null, open: [] });
    const yaml = parse(guessed.yaml) as Record<string, unknown>;
    expect(yaml).toMatchObject({ format: 'jsonl' });
    expect(yaml).not.toHaveProperty('delimiter');
    expect(yaml.columns).toEqual({
      source_key: { column: 'id' },
      customer_id: { column: 'customer.id' },
      order_date: { column: 'placed_at', date: ['YYYY-MM-DD'] },
      amount: { column: 'total.amount', decimal: '.' },
      currency: { column: 'total.currency' },
    });
    // the properties left out, by their paths (an array by its first element)
    expect(guessed.yaml).toContain('#   "lines[0].sku": "A-1"');
    expect(() => parseProfileText(guessed.yaml, 'draft.yaml', 'draft')).not.toThrow();
  });

  it('writes an odd name as a JSON string in brackets; one JSON document is refused as before', () => {
    expect(pathText(['meta', 'unit price', 0, 'x'])).toBe('meta["unit price"][0].x');
    expect(pathText(['order.no'])).toBe('["order.no"]');
    expect(() => guessFromSample('orders.json', Buffer.from('[\n  {"id": 1, "total": "5.00"}\n]\n'), true)).toThrow(
      new UserError(
        'orders.json: a JSON document, not CSV: order-loader reads JSON Lines (one object per line, format: jsonl), not one JSON document; export the orders one object per line, or as CSV',
      ),
    );
  });

  it('JSON Lines that is not UTF-8 is said so, with what to do (the reader reads UTF-8), not "guess does not draft"', () => {
    const text = '{"id": "A1", "name": "M\u00fcller", "amount": 1.5}\n{"id": "A2", "name": "x", "amount": 2.5}\n';
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    for (const bytes of [Buffer.from(text, 'latin1'), utf16]) {
      expect(() => guessFromSample('orders.jsonl', bytes, true)).toThrow(
        /^orders\.jsonl: JSON Lines \(one JSON object per line, 2 in the sample\) in [\w-]+, not UTF-8: the JSON Lines reader \(format: jsonl\) reads UTF-8, the encoding of JSON: convert the file to UTF-8 \(iconv -f [\w-]+ -t UTF-8\) and guess that file$/,
      );
    }
  });
});
