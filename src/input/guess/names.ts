/**
 * guess: the names a header gives each of the five fields, in the languages partners' files are
 * written in, and how like one of them a header name is.
 */
export const FIELDS = ['source_key', 'customer_id', 'order_date', 'amount', 'currency'] as const;
export type Field = (typeof FIELDS)[number];

export const SYNONYMS: Record<Field, string[]> = {
  source_key: [
    'source_key',
    'order no',
    'order number',
    'order id',
    'order',
    'order nr',
    'bestellnr',
    'bestellnummer',
    'bestellung',
    'auftragsnr',
    'auftragsnummer',
    'auftrag',
    'belegnr',
    'beleg',
    'key',
    'ref',
    'reference',
    'document no',
    'order name',
    'commande',
    'n° commande',
    'numéro de commande',
    'pedido',
    'ordine',
    'bestelling',
    '注文番号',
    '受注番号',
    '伝票番号',
    '注文no',
    'オーダー番号',
  ],
  customer_id: [
    'customer_id',
    'customer',
    'customer no',
    'customer number',
    'client',
    'account',
    'kunde',
    'kundennr',
    'kundennummer',
    'kunden nr',
    'debitor',
    'customer id',
    'cliente',
    'klant',
    '顧客',
    '顧客番号',
    '顧客コード',
    '得意先',
    '得意先コード',
    '取引先',
  ],
  order_date: [
    'order_date',
    'date',
    'order date',
    'datum',
    'bestelldatum',
    'auftragsdatum',
    'belegdatum',
    'date commande',
    'fecha',
    'data ordine',
    'orderdatum',
    'created at',
    'ordered at',
    'order time',
    '日付',
    '注文日',
    '受注日',
    '伝票日付',
  ],
  amount: [
    'amount',
    'total',
    'sum',
    'value',
    'net',
    'gross',
    'betrag',
    'summe',
    'gesamt',
    'wert',
    'montant',
    'importe',
    'importo',
    'bedrag',
    '金額',
    '合計',
    '合計金額',
    '税込金額',
  ],
  currency: ['currency', 'cur', 'ccy', 'curr', 'währung', 'waehrung', 'whg', 'devise', '通貨', '通貨コード'],
};

/** A name as compared: NFKC, lower case, no spaces, dots, underscores, #, hyphens. */
export function normalizeName(name: string): string {
  return name
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\s._#\-/:()]+/g, '');
}

/** How like a field's names a header name is: 1 equal to one, 0.7 one within the other, 0. */
export function nameSimilarity(name: string, field: Field): { score: number; like: string | null } {
  const n = normalizeName(name);
  if (n === '') return { score: 0, like: null };
  let best: { score: number; like: string | null } = { score: 0, like: null };
  for (const synonym of SYNONYMS[field]) {
    const s = normalizeName(synonym);
    const score = n === s ? 1 : (s.length >= 2 && n.includes(s)) || (n.length >= 3 && s.startsWith(n)) ? 0.7 : 0;
    if (score > best.score) best = { score, like: synonym };
  }
  return best;
}
