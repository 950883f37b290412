/**
 * What the statements of sql/oracle/queries that decide which rows are staged, claimed, merged
 * and finalized must say, written here as literals: the predicates of each WHERE
 * (the set of its top-level conjuncts, or disjuncts), and the SET columns with their values.
 * They are not read from sql/oracle: a statement that loses a predicate or sets a column to
 * something else no longer matches, whatever the file says.
 *
 * The text is compared after normalizeSql: comments and optimizer hints removed, white space
 * collapsed, keywords and names in lower case (string literals keep their case), no space just
 * inside parentheses.
 */

/** A load held for its control totals (its journal's control_held, no control_accepted) is not released: only `accept`. */
export const CONTROL_NOT_HELD =
  "not (exists (select 1 from load_run_event c where c.event = 'control_held' and c.run_id >= :load_id and json_value(c.detail, '$.loadId') = to_char(:load_id)) and not exists (select 1 from load_run_event a where a.event = 'control_accepted' and a.run_id >= :load_id and json_value(a.detail, '$.loadId') = to_char(:load_id)))";

/** Comments and hints out, white space collapsed, lower case outside string literals. */
export function normalizeSql(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const ch = sql.charAt(i);
    if (ch === "'") {
      let end = i + 1;
      for (;;) {
        end = sql.indexOf("'", end);
        if (end < 0) throw new Error('normalizeSql: unterminated string literal');
        if (sql[end + 1] === "'") end += 2;
        else break;
      }
      out += sql.slice(i, end + 1);
      i = end + 1;
    } else if (ch === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      out += ' ';
      i = end < 0 ? sql.length : end + 1;
    } else if (ch === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      out += ' ';
      i = end < 0 ? sql.length : end + 2;
    } else {
      out += /\s/.test(ch) ? ' ' : ch.toLowerCase();
      i++;
    }
  }
  return out.replace(/ {2,}/g, ' ').replace(/\( /g, '(').replace(/ \)/g, ')').trim();
}

/**
 * Split `text` at `separator` (' and ', ' or ', ',') where it is at the top level: outside
 * parentheses, string literals and CASE ... END.
 */
export function splitTop(text: string, separator: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  let i = 0;
  const wordAt = (word: string) =>
    text.startsWith(word, i) && !/[a-z0-9_$#.]/.test(text.charAt(i - 1)) && !/[a-z0-9_$#]/.test(text.charAt(i + word.length));
  while (i < text.length) {
    const ch = text.charAt(i);
    if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      i = end < 0 ? text.length : end + 1;
      continue;
    }
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (wordAt('case')) depth++;
    else if (wordAt('end')) depth--;
    else if (depth === 0 && text.startsWith(separator, i)) {
      parts.push(text.slice(start, i).trim());
      i += separator.length;
      start = i;
      continue;
    }
    i++;
  }
  parts.push(text.slice(start).trim());
  return parts.filter((p) => p !== '');
}

/** The text between the first top-level `open` keyword and the first top-level `close` after it. */
export function clause(text: string, open: string, close: readonly string[] = []): string | undefined {
  const at = topIndex(text, open, 0);
  if (at < 0) return undefined;
  const from = at + open.length;
  const ends = close.map((c) => topIndex(text, c, from)).filter((n) => n >= 0);
  return text.slice(from, ends.length > 0 ? Math.min(...ends) : text.length).trim();
}

/** Index of `word` in `text` from `from`, outside parentheses and string literals; -1 if none. */
function topIndex(text: string, word: string, from: number): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charAt(i);
    if (ch === "'") {
      const end = text.indexOf("'", i + 1);
      i = end < 0 ? text.length : end;
      continue;
    }
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    else if (depth === 0 && i >= from && text.startsWith(word, i)) return i;
  }
  return -1;
}

export interface Shape {
  /** How the normalized statement begins. */
  head: string;
  /** The top-level conjuncts of the (outer) WHERE, as a set: none missing, none added. */
  where?: readonly string[];
  /** The top-level disjuncts of a WHERE that is an OR of conditions (the MERGEs' WHEN MATCHED ... WHERE). */
  whereAny?: readonly string[];
  /** The SET assignments, as a set (`column = expression`). */
  set?: readonly string[];
  /** Other fragments the normalized statement must contain. */
  contains?: readonly string[];
  /** An INSERT ... VALUES: each column with the expression its value is, as a set: none missing, none added. */
  values?: Readonly<Record<string, string>>;
}

/**
 * The statements, by their file name in sql/oracle/queries. The WHERE of a MERGE's source
 * query and of its WHEN MATCHED clause are told apart in `contains`/`whereAny` (see each).
 */
export const SHAPES: Readonly<Record<string, Shape>> = {
  // claimable (READY, or RETRY_WAIT whose time has come) after the keyset position, of the
  // loads asked for, in stage_id order, locked as fetched and never waited for
  claim: {
    head: 'select stage_id, source_key,',
    where: [
      "case when process_status in ('READY', 'RETRY_WAIT') then stage_id end > :after_stage_id",
      "(process_status = 'READY' or next_attempt_at <= systimestamp)",
      "(:load_ids is null or instr(:load_ids, ',' || to_char(load_id) || ',') > 0)",
    ],
    contains: [
      // a date BC keeps its era: 'YYYY' alone prints the year unsigned (validateOrder refuses ' BC')
      " to_char(order_date, 'YYYY-MM-DD') || case when order_date < date '0001-01-01' then ' BC' end as order_date,",
      ' from order_stage where ',
      " order by case when process_status in ('READY', 'RETRY_WAIT') then stage_id end for update skip locked",
    ],
  },
  // one merged row (by its stage_id) DONE; the attempt counted, the error cleared
  finalize_done: {
    head: 'update order_stage set',
    where: ['stage_id = :stage_id'],
    set: [
      "process_status = 'DONE'",
      'attempt_count = attempt_count + 1',
      'batch_id = :batch_id',
      'processed_at = systimestamp',
      'updated_at = systimestamp',
      'error_code = null',
      'error_message = null',
      'next_attempt_at = null',
    ],
  },
  // one failed row (by its stage_id) to the status the engine decided (ERROR or RETRY_WAIT)
  finalize_failed: {
    head: 'update order_stage set',
    where: ['stage_id = :stage_id'],
    set: [
      'process_status = :status',
      'attempt_count = :attempt_no',
      'transient_failures = :transient_failures',
      'batch_id = :batch_id',
      'processed_at = systimestamp',
      'updated_at = systimestamp',
      'error_code = :error_code',
      'error_message = substr(:error_message, 1, 1000)',
      `next_attempt_at = from_tz(to_timestamp(:next_attempt_at, 'YYYY-MM-DD"T"HH24:MI:SS.FF3'), '+00:00')`,
    ],
  },
  // one stage row into orders by source_key; a matched row is updated only when a value differs
  merge_orders: {
    head: 'merge into orders o using (select s.source_key, s.customer_id, s.order_date, s.amount, s.currency, s.attributes from order_stage s',
    contains: [
      ' where s.stage_id = :stage_id) src ',
      ' on (o.source_key = src.source_key) ',
      ' when not matched then insert (source_key, customer_id, order_date, amount, currency, attributes) values (src.source_key, src.customer_id, src.order_date, src.amount, src.currency, src.attributes)',
    ],
    set: [
      'o.customer_id = src.customer_id',
      'o.order_date = src.order_date',
      'o.amount = src.amount',
      'o.currency = src.currency',
      'o.attributes = src.attributes',
      'o.updated_at = systimestamp',
    ],
    whereAny: [
      'decode(o.customer_id, src.customer_id, 0, 1) = 1',
      'decode(o.order_date, src.order_date, 0, 1) = 1',
      'decode(o.amount, src.amount, 0, 1) = 1',
      'decode(o.currency, src.currency, 0, 1) = 1',
      // attributes, a CLOB (no DECODE): NULL tests, then DBMS_LOB.COMPARE of the canonical text
      'case when o.attributes is null and src.attributes is null then 0 when o.attributes is null or src.attributes is null then 1 when dbms_lob.compare(o.attributes, src.attributes) = 0 then 0 else 1 end = 1',
    ],
  },
  // the batch row of one key, only when order_stage does not hold that key yet
  stage_batch_new: {
    head: 'insert into order_stage (source_key, customer_id, order_date, amount, currency, process_status, error_code, error_message, load_id, line_no, attributes) select',
    where: ['i.source_key = :source_key', 'not exists (select 1 from order_stage s where s.source_key = i.source_key)'],
    contains: [
      " case when i.parse_code is null then 'READY' else 'ERROR' end, i.parse_code, i.parse_message, :load_id, i.line_no, i.attributes from order_stage_batch i ",
    ],
  },
  // one line of the batch straight into order_stage: converted as stage_batch_insert.sql converts
  // it, READY or ERROR from the line's parse error, this load and line; every other column (stage_id,
  // attempt_count, transient_failures, timestamps) its default
  stage_batch_direct: {
    head: 'insert into order_stage (',
    values: {
      source_key: ':source_key',
      customer_id: "cast(to_number(:customer_id, '99999999999999999999999999999999999999', 'NLS_NUMERIC_CHARACTERS=''.,''') as number(19))",
      order_date: "to_date(:order_date, 'YYYY-MM-DD')",
      amount: "cast(to_number(:amount, '99999999999999999999999999D999999999999', 'NLS_NUMERIC_CHARACTERS=''.,''') as number(18, 2))",
      currency: ':currency',
      process_status: "case when :parse_code is null then 'READY' else 'ERROR' end",
      error_code: ':parse_code',
      error_message: ':parse_message',
      load_id: ':load_id',
      line_no: ':line_no',
      attributes: ':attributes',
    },
  },
  // the stored row of one key, from its batch row: only when something changes
  stage_batch_update: {
    head: 'merge into order_stage s using (select',
    contains: [
      ' from order_stage_batch i join order_stage cur on cur.source_key = i.source_key where i.source_key = :source_key) src ',
      ' on (s.source_key = src.source_key) ',
      " case when (cur.process_status = 'ERROR' and nvl(cur.error_code, '-') like 'PARSE%') or i.parse_code is not null or decode(cur.customer_id, i.customer_id, 0, 1) = 1 or decode(cur.order_date, i.order_date, 0, 1) = 1 or decode(cur.amount, i.amount, 0, 1) = 1 or decode(cur.currency, i.currency, 0, 1) = 1 or case when cur.attributes is null and i.attributes is null then 0 when cur.attributes is null or i.attributes is null then 1 when dbms_lob.compare(cur.attributes, i.attributes) = 0 then 0 else 1 end = 1 then 1 else 0 end as is_changed ",
    ],
    set: [
      's.customer_id = src.customer_id',
      's.order_date = src.order_date',
      's.amount = src.amount',
      's.currency = src.currency',
      's.attributes = src.attributes',
      "s.process_status = case when src.is_changed = 1 then case when src.parse_code is null then 'READY' else 'ERROR' end else s.process_status end",
      's.error_code = case when src.is_changed = 1 then src.parse_code else s.error_code end',
      's.error_message = case when src.is_changed = 1 then src.parse_message else s.error_message end',
      's.next_attempt_at = case when src.is_changed = 1 then null else s.next_attempt_at end',
      's.transient_failures = case when src.is_changed = 1 then 0 else s.transient_failures end',
      's.load_id = :load_id',
      's.line_no = src.line_no',
      's.updated_at = systimestamp',
    ],
    whereAny: [
      'src.is_changed = 1',
      "(s.process_status <> 'DONE' and decode(s.load_id, :load_id, 0, 1) = 1)",
      '(decode(s.load_id, :load_id, 1, 0) = 1 and s.line_no < src.line_no)',
    ],
  },
  // this load recorded for the batch's keys whose line is identical to the row of another load
  // (the counts' unchanged lines); a record moves only to a later load
  stage_batch_unchanged: {
    head: 'merge into order_stage_unchanged u using (select i.source_key from order_stage_batch i join order_stage s on s.source_key = i.source_key where ',
    contains: [
      " where i.parse_code is null and decode(s.customer_id, i.customer_id, 0, 1) = 0 and decode(s.order_date, i.order_date, 0, 1) = 0 and decode(s.amount, i.amount, 0, 1) = 0 and decode(s.currency, i.currency, 0, 1) = 0 and case when s.attributes is null and i.attributes is null then 0 when s.attributes is null or i.attributes is null then 1 when dbms_lob.compare(s.attributes, i.attributes) = 0 then 0 else 1 end = 0 and not (s.process_status = 'ERROR' and nvl(s.error_code, '-') like 'PARSE%') and decode(s.load_id, :load_id, 0, 1) = 1) src ",
      ' on (u.source_key = src.source_key) ',
      ' when not matched then insert (source_key, load_id) values (src.source_key, :load_id)',
    ],
    set: ['u.load_id = :load_id'],
    where: ['u.load_id < :load_id'],
  },
  // one key's later loads: its stage row's and its unchanged record's, each only when greater
  later_load_keys: {
    head: 'begin select (select s.load_id from order_stage s where s.source_key = :source_key and s.load_id > :load_id), (select u.load_id from order_stage_unchanged u where u.source_key = :source_key and u.load_id > :load_id) into :stage_load, :unchanged_load from dual; end;',
  },
  // the claimable row of one key that this load staged: HELD
  hold_rows: {
    head: 'update order_stage set',
    where: ['source_key = :source_key', 'load_id = :load_id', "process_status in ('READY', 'RETRY_WAIT')"],
    // the time of the hold: `recover --older-than` measures a hold's age by it
    set: ["process_status = 'HELD'", 'updated_at = systimestamp'],
  },
  // a rerun's file that an earlier load staged or began: that load's claimable rows HELD again, its holds dated now
  hold_load: {
    head: 'update order_stage set',
    where: ['load_id = :load_id', "process_status in ('READY', 'RETRY_WAIT', 'HELD')"],
    set: ["process_status = 'HELD'", 'updated_at = systimestamp'],
  },
  // the HELD rows of one load: READY, or RETRY_WAIT when the row was waiting
  release_held: {
    head: 'update order_stage set',
    where: ["case when process_status = 'HELD' then load_id end = :load_id", CONTROL_NOT_HELD],
    set: ["process_status = case when next_attempt_at is null then 'READY' else 'RETRY_WAIT' end"],
  },
};

/** The WHEN MATCHED ... WHERE of a MERGE, or the WHERE of any other statement. */
export function outerWhere(text: string): string | undefined {
  if (text.startsWith('merge ')) {
    const matched = clause(text, ' when matched then update set ', [' when not matched ']);
    return matched === undefined ? undefined : clause(matched, ' where ');
  }
  return clause(text, ' where ', [' order by ', ' for update']);
}

/** The SET list of an UPDATE, or of a MERGE's WHEN MATCHED clause. */
export function setList(text: string): string[] {
  const list = text.startsWith('merge ')
    ? clause(text, ' when matched then update set ', [' where ', ' when not matched '])
    : clause(text, ' set ', [' where ']);
  return list === undefined ? [] : splitTop(list, ',');
}

/** What the normalized statement lacks or has in excess against its shape; [] when it conforms. */
export function shapeProblems(name: string, sql: string): string[] {
  const shape = SHAPES[name];
  if (shape === undefined) throw new Error(`no shape for ${name}`);
  const text = normalizeSql(sql);
  const problems: string[] = [];
  if (!text.startsWith(shape.head)) problems.push(`does not begin with "${shape.head}"`);
  for (const fragment of shape.contains ?? []) if (!text.includes(fragment)) problems.push(`lacks "${fragment.trim()}"`);
  const compare = (what: string, expected: readonly string[] | undefined, actual: string[]) => {
    if (expected === undefined) return;
    for (const e of expected) if (!actual.includes(e)) problems.push(`${what}: lacks "${e}"`);
    for (const a of actual) if (!expected.includes(a)) problems.push(`${what}: has "${a}", not expected`);
  };
  const where = outerWhere(text);
  compare('WHERE (AND)', shape.where, where === undefined ? [] : splitTop(where, ' and '));
  compare('WHERE (OR)', shape.whereAny, where === undefined ? [] : splitTop(where, ' or '));
  compare('SET', shape.set, setList(text));
  if (shape.values !== undefined) {
    const m = /^insert into [a-z_]+ \(([^)]*)\) values \((.*)\)$/.exec(text);
    const columns = splitTop(m?.[1] ?? '', ',');
    const values = splitTop(m?.[2] ?? '', ',');
    const actual =
      columns.length === values.length
        ? columns.map((c, i) => `${c} = ${values[i] ?? ''}`)
        : [`${columns.length} columns, ${values.length} values`];
    compare(
      'VALUES',
      Object.entries(shape.values).map(([c, v]) => `${c} = ${v}`),
      actual,
    );
  }
  return problems;
}
