/**
 * guess: the date masks a column's values are written in. Pure. Each value is read by its shape
 * (year first, day or month first, compact digits, a Japanese era; a time, fraction, 12-hour
 * clock and offset after it), giving the mask that writes it: two-digit parts as `MM`/`DD`, one
 * digit as `M`/`D`. A column's mask is one that reads every value it is proposed for (`YYYY/M/D`
 * where `2026/12/1` and `2026/12/10` are both in the column); values that read day first and
 * month first alike leave the choice open.
 */

/** The first and last day of each Japanese era (the last era has none). */
const ERAS: Array<{ names: string[]; start: string; end: string | null }> = [
  { names: ['令和', 'R'], start: '2019-05-01', end: null },
  { names: ['平成', 'H'], start: '1989-01-08', end: '2019-04-30' },
  { names: ['昭和', 'S'], start: '1926-12-25', end: '1989-01-07' },
  { names: ['大正', 'T'], start: '1912-07-30', end: '1926-12-24' },
  { names: ['明治', 'M'], start: '1868-01-25', end: '1912-07-29' },
];

export interface MaskHits {
  mask: string;
  hits: number;
}

export interface DateEvidence {
  /** Masks that read at least one value, most first, with how many values each reads. */
  masks: MaskHits[];
  /** Non-empty values looked at, and how many of them some mask reads. */
  of: number;
  readable: number;
  /** Values that read alike day first and month first (01/02/2026), with both masks. */
  ambiguous: { masks: [string, string]; example: string } | null;
  /** The masks to propose (together they read every value), or null when undecided. */
  chosen: string[] | null;
  /** The offsets the values read by the chosen masks carry (`+09:00`, `Z`), when they carry one. */
  offsets: string[];
  /** Values no mask reads (a date out of its era, a suffix no mask writes). */
  unread: string[];
}

interface Reading {
  /** The mask with two-digit tokens where the value has two digits. */
  strict: string;
  /** The same mask with one-or-two-digit tokens (M, D, H, h, E). */
  loose: string;
  /** Day first or month first (a twin mask reads the same digits the other way round). */
  swappable: boolean;
  offset: string | null;
}

const two = (digits: string, token: string): string => (digits.length === 2 ? token + token : token);
const daysIn = (y: number, m: number): number => new Date(Date.UTC(y, m, 0)).getUTCDate();
const iso = (y: number, m: number, d: number): string =>
  `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;

function validDate(y: number, m: number, d: number): boolean {
  return y >= 1868 && y <= 2199 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m);
}

const TIME =
  /^(?<sep>[T ])(?<h>\d{1,2}):(?<mi>\d{2})(?::(?<s>\d{2})(?:\.(?<f>\d{1,9}))?)?(?:(?<asep> ?)(?<ap>AM|PM|am|pm))?(?:(?<zsep> ?)(?<z>Z|UTC|GMT|[+-]\d{2}(?::?\d{2})?))?$/;

/** The mask of the time after a date (`` when there is none), strict and loose, and its offset; null when it is no time. */
function timeMask(rest: string): { strict: string; loose: string; offset: string | null } | null {
  if (rest === '') return { strict: '', loose: '', offset: null };
  const g = TIME.exec(rest)?.groups;
  if (g === undefined) return null;
  const hour = Number(g.h);
  const twelve = g.ap !== undefined;
  if (twelve ? hour < 1 || hour > 12 : hour > 23) return null;
  if (Number(g.mi) > 59 || (g.s !== undefined && Number(g.s) > 59)) return null;
  const h = twelve ? 'h' : 'H';
  const tail =
    `:mm${g.s === undefined ? '' : ':ss'}${g.f === undefined ? '' : `.${'S'.repeat(g.f.length)}`}` +
    `${twelve ? `${g.asep ?? ''}A` : ''}${g.z === undefined ? '' : `${g.zsep ?? ''}Z`}`;
  const sep = g.sep ?? ' ';
  return { strict: `${sep}${two(g.h ?? '', h)}${tail}`, loose: `${sep}${h}${tail}`, offset: g.z ?? null };
}

function eraReading(value: string): Reading | null {
  const m =
    /^(?<era>令和|平成|昭和|大正|明治|[RHSTM])(?<ey>元|\d{1,2})(?<s1>年|[./-])(?<mo>\d{1,2})(?<s2>月|[./-])(?<d>\d{1,2})(?<ri>日?)$/.exec(
      value,
    )?.groups;
  if (m === undefined) return null;
  const era = ERAS.find((e) => e.names.includes(m.era ?? ''));
  if (era === undefined || (m.s1 === '年') !== (m.s2 === '月') || (m.ri === '日') !== (m.s1 === '年')) return null;
  const year = Number(era.start.slice(0, 4)) + (m.ey === '元' ? 1 : Number(m.ey)) - 1;
  const [mo, d] = [Number(m.mo), Number(m.d)];
  if (!validDate(year, mo, d)) return null;
  const date = iso(year, mo, d);
  if (date < era.start || (era.end !== null && date > era.end)) return null;
  const ey = m.ey === '元' ? 'E' : two(m.ey ?? '', 'E');
  const tail = `${m.s1 ?? ''}${two(m.mo ?? '', 'M')}${m.s2 ?? ''}${two(m.d ?? '', 'D')}${m.ri ?? ''}`;
  return { strict: `G${ey}${tail}`, loose: `GE${m.s1 ?? ''}M${m.s2 ?? ''}D${m.ri ?? ''}`, swappable: false, offset: null };
}

/** Every way the value reads as a date (two for 01/02/2026: day first and month first). */
function readings(value: string): Reading[] {
  const era = eraReading(value);
  if (era !== null) return [era];
  const out: Reading[] = [];
  const withTime = (date: { strict: string; loose: string; swappable: boolean }, rest: string) => {
    const t = timeMask(rest);
    if (t !== null) out.push({ strict: date.strict + t.strict, loose: date.loose + t.loose, swappable: date.swappable, offset: t.offset });
  };
  const compact = /^(\d{4})(\d{2})(\d{2})(\d{6}|\d{4})?$/.exec(value);
  if (compact !== null) {
    const [, y, mo, d, time = ''] = compact;
    const t = time.length === 6 ? /^(\d{2})(\d{2})(\d{2})$/.exec(time) : /^(\d{2})(\d{2})()$/.exec(time);
    const timeOk = time === '' || (t !== null && Number(t[1]) <= 23 && Number(t[2]) <= 59 && Number(t[3] || 0) <= 59);
    if (validDate(Number(y), Number(mo), Number(d)) && timeOk && Number(y) >= 1900) {
      const mask = `YYYYMMDD${time.length === 6 ? 'HHmmss' : time.length === 4 ? 'HHmm' : ''}`;
      out.push({ strict: mask, loose: mask, swappable: false, offset: null });
    }
    return out;
  }
  const ymd = /^(\d{4})(年|[-/.])(\d{1,2})(月|[-/.])(\d{1,2})(日?)(.*)$/.exec(value);
  if (ymd !== null) {
    const [, y, s1 = '', mo = '', s2 = '', d = '', ri = '', rest = ''] = ymd;
    const kanji = s1 === '年';
    if ((kanji ? s2 === '月' && ri === '日' : s1 === s2 && ri === '') && validDate(Number(y), Number(mo), Number(d)) && Number(y) >= 1900)
      withTime({ strict: `YYYY${s1}${two(mo, 'M')}${s2}${two(d, 'D')}${ri}`, loose: `YYYY${s1}M${s2}D${ri}`, swappable: false }, rest);
    return out;
  }
  const dmy = /^(\d{1,2})([-/.])(\d{1,2})\2(\d{4})(.*)$/.exec(value);
  if (dmy !== null) {
    const [, a = '', s = '', b = '', y, rest = ''] = dmy;
    if (Number(y) < 1900) return out;
    if (validDate(Number(y), Number(b), Number(a)))
      withTime({ strict: `${two(a, 'D')}${s}${two(b, 'M')}${s}YYYY`, loose: `D${s}M${s}YYYY`, swappable: s !== '.' }, rest);
    if (s !== '.' && validDate(Number(y), Number(a), Number(b)))
      withTime({ strict: `${two(a, 'M')}${s}${two(b, 'D')}${s}YYYY`, loose: `M${s}D${s}YYYY`, swappable: true }, rest);
  }
  return out;
}

/** The mask with day and month swapped (DD/MM/YYYY ↔ MM/DD/YYYY). */
function swapped(mask: string): string {
  return mask.replace(/MM|DD|M|D/g, (t) => (t[0] === 'M' ? t.replaceAll('M', 'D') : t.replaceAll('D', 'M')));
}

interface Group {
  loose: string;
  values: Set<string>;
  stricts: Set<string>;
  swappable: boolean;
  first: number;
}

const TOKEN = /YYYY|MM|DD|HH|hh|mm|ss|EE|S+|./g;

/** The group's mask: each part two-digit where every value has two digits there, else one-or-two (`MM/DD/YYYY h:mm A`). */
function proposed(g: Group): string {
  const [first, ...rest] = [...g.stricts].map((m) => m.match(TOKEN) ?? []);
  if (first === undefined) return g.loose;
  return first.map((t, i) => (rest.every((r) => r[i] === t) ? t : (t[0] ?? ''))).join('');
}

export function dateEvidence(values: readonly string[]): DateEvidence {
  const filled = values.filter((v) => v !== '');
  const groups = new Map<string, Group>();
  const offsets = new Map<string, Set<string>>();
  let readable = 0;
  const unread: string[] = [];
  filled.forEach((v, i) => {
    const rs = readings(v);
    if (rs.length > 0) readable++;
    else unread.push(v);
    for (const r of rs) {
      const g = groups.get(r.loose) ?? { loose: r.loose, values: new Set(), stricts: new Set(), swappable: r.swappable, first: i };
      g.values.add(v);
      g.stricts.add(r.strict);
      groups.set(r.loose, g);
      if (r.offset !== null) offsets.set(r.loose, (offsets.get(r.loose) ?? new Set()).add(r.offset));
    }
  });
  const count = (g: Group) => filled.filter((v) => g.values.has(v)).length;
  const ranked = [...groups.values()].sort((a, b) => count(b) - count(a) || a.first - b.first);
  const masks = ranked.map((g) => ({ mask: proposed(g), hits: count(g) }));
  // the fewest masks that read every value: greedy, most hits first; a mask whose twin reads the same values is no decision
  let ambiguous: DateEvidence['ambiguous'] = null;
  const left = new Set(filled);
  const chosen: Group[] = [];
  for (const g of ranked) {
    const reads = [...left].filter((v) => g.values.has(v));
    if (reads.length === 0) continue;
    const twin = g.swappable ? groups.get(swapped(g.loose)) : undefined;
    if (twin !== undefined && reads.every((v) => twin.values.has(v))) {
      const pair = [proposed(g), proposed(twin)].sort((a, b) => a.indexOf('D') - b.indexOf('D')) as [string, string];
      ambiguous = { masks: pair, example: reads[0] ?? '' };
      break;
    }
    chosen.push(g);
    for (const v of reads) left.delete(v);
  }
  const decided = ambiguous === null && chosen.length > 0 ? chosen : null;
  return {
    masks,
    of: filled.length,
    readable,
    ambiguous,
    chosen: decided === null ? null : decided.map(proposed),
    offsets: decided === null ? [] : [...new Set(decided.flatMap((g) => [...(offsets.get(g.loose) ?? [])]))],
    unread,
  };
}

/** The share of values some mask reads. */
export function dateShare(e: DateEvidence): number {
  return e.of === 0 ? 0 : e.readable / e.of;
}

/**
 * The zone to state for dates read with an offset: the offset every value carries, as an IANA
 * name (`+09:00` → Etc/GMT-9, `Z` or `UTC` → UTC), so that an order's date is the date written; null when
 * the values carry different offsets or one that is not whole hours (not decided).
 */
export function zoneOfOffsets(offsets: readonly string[]): string | null {
  const hours = new Set(
    offsets.map((o) => {
      if (o === 'Z' || o === 'UTC' || o === 'GMT') return 0;
      const m = /^([+-])(\d{2}):?(\d{2})?$/.exec(o);
      if (m === null || (m[3] !== undefined && m[3] !== '00')) return Number.NaN;
      return (m[1] === '-' ? -1 : 1) * Number(m[2]);
    }),
  );
  if (hours.size !== 1) return null;
  const h = [...hours][0] as number;
  if (Number.isNaN(h)) return null;
  // IANA's Etc zones count the other way: Etc/GMT-9 is nine hours ahead of UTC
  return h === 0 ? 'UTC' : `Etc/GMT${h > 0 ? '-' : '+'}${Math.abs(h)}`;
}
