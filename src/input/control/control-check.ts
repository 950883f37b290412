/**
 * The control totals of one file (a profile's `control:`), checked on the whole file before
 * anything of it is staged: the pre-read (src/input/repeated-keys.ts) reads every file from its
 * first line, also one whose staging resumes, and tells each item to a ControlTally.
 *
 * What is compared is what was read *before* per-row rejections: every data record the reader
 * gave (rows staged, lines rejected for their field count, encoding or a value), not the trailer
 * or header record, not blank lines, and the lines the profile discards (comment, when) only with
 * `count_discarded: true`. The sum is of the amounts read with the profile's number rules; a line
 * whose amount cannot be read adds nothing (the figures say how many).
 */
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { OpenedFile } from '../opened-file.js';
import type { FileItem, OrderFile } from '../order-file.js';
import { amountConverter, canonicalAmount, groupCodes } from '../profile/amount-form.js';
import type { ControlField, ControlSpec, LoadProfileSpec } from '../profile/schema.js';
import { controlValue, type ControlRecord } from './control-record.js';
import { addDecimal, decimalEquals, formatDecimal, parseDecimal, ZERO_SUM, type DecimalSum } from './decimal-sum.js';
import { fileSha256 } from './file-sha256.js';

/** What the check found. `refused`: the file's control values are missing or cannot be read; `mismatch`: they disagree. */
export type ControlStatus = 'ok' | 'mismatch' | 'refused';

export interface ControlOutcome {
  file: string;
  /** Where the control values were looked for: `trailer (line 7)`, `control file orders.ctl`. */
  where: string;
  status: ControlStatus;
  /** The values the file states, as written (absent: not stated, or not found). */
  claimed: { count?: string; sum?: string; bytes?: string; sha256?: string };
  /** What was read: data records (before per-row rejections), the sum of their amounts, the file's size and SHA-256. */
  read: { count: number; sum?: string; bytes?: number; sha256?: string; amountsUnread?: number };
  /** Why it is not `ok`, one sentence each. */
  problems: string[];
  onMismatch: 'hold' | 'warn';
}

/** The name of a file's control file: `{name}` is its base name, `{stem}` that without its last extension. */
export function controlFileName(dataFile: string, pattern: string): string {
  const name = basename(dataFile);
  const stem = name.slice(0, name.length - extname(name).length);
  return join(dirname(dataFile), pattern.replaceAll('{name}', name).replaceAll('{stem}', stem));
}

/** Whether a base name is a control file by this pattern (never an order file of a run that reads with it). */
export function isControlFileName(name: string, pattern: string): boolean {
  const re = pattern
    .split(/(\{name\}|\{stem\})/)
    .map((part) => (part === '{name}' || part === '{stem}' ? '.+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${re}$`).test(name);
}

/** The tally of a file read with this profile spec, or null when it states no control totals. */
export function controlTallyOf(spec: LoadProfileSpec | undefined): ControlTally | null {
  return spec?.control === undefined ? null : new ControlTally({ ...spec, control: spec.control });
}

/** Counts what a file's reader gives, for its control check. */
export class ControlTally {
  private count = 0;
  private sum: DecimalSum = ZERO_SUM;
  private amountsUnread = 0;
  private firstLine = Number.POSITIVE_INFINITY;
  private lastLine = 0;
  private stopped: string | null = null;

  constructor(private readonly spec: LoadProfileSpec & { control: ControlSpec }) {}

  add(item: FileItem): void {
    if (item.kind === 'reject' && item.stopsFile) {
      this.stopped = `the file could not be read to its end (line ${item.lineNo}: ${item.message})`;
      return;
    }
    this.count++;
    this.firstLine = Math.min(this.firstLine, item.lineNo);
    this.lastLine = Math.max(this.lastLine, item.lineNo);
    const amount = item.kind === 'record' && item.problem?.column !== 'amount' ? parseDecimal(item.fields.amount) : null;
    if (amount === null) this.amountsUnread++;
    else this.sum = addDecimal(this.sum, amount);
  }

  /**
   * The outcome, once the reader gave its last item (`file`: for its control records and discarded
   * lines; `source`: the file as the run opened it, its first `size` bytes hashed when a SHA-256 is stated).
   */
  async finish(
    file: Pick<OrderFile, 'path' | 'size' | 'discarded' | 'controlRecords'>,
    size: number,
    source: string | OpenedFile = file.path,
  ): Promise<ControlOutcome> {
    const control = this.spec.control;
    const read: ControlOutcome['read'] = { count: this.count + (control.count_discarded ? file.discarded() : 0) };
    if (control.sum !== undefined) {
      read.sum = formatDecimal(this.sum);
      if (this.amountsUnread > 0) read.amountsUnread = this.amountsUnread;
    }
    if (control.bytes !== undefined) read.bytes = size;
    if (control.sha256 !== undefined && this.stopped === null) read.sha256 = await fileSha256(source);
    const base = { file: file.path, read, onMismatch: control.on_mismatch };
    const found = this.controlRecord(file);
    if ('problem' in found) return { ...base, where: found.where, status: 'refused', claimed: {}, problems: [found.problem] };
    return this.compare(found.record, found.where, base);
  }

  /** The trailer, header or control file's line; or why there is none to read. */
  private controlRecord(
    file: Pick<OrderFile, 'path' | 'controlRecords'>,
  ): { record: Pick<ControlRecord, 'fields' | 'text' | 'cellIndex'>; where: string } | { problem: string; where: string } {
    const control = this.spec.control;
    if (control.file !== undefined) {
      const path = controlFileName(file.path, control.file);
      const where = `control file ${basename(path)}`;
      const line = readControlLine(path);
      if (line === null) return { where, problem: `no ${where} beside ${basename(file.path)}` };
      if (line === '') return { where, problem: `the ${where} is empty` };
      const delimiter = control.delimiter ?? this.spec.delimiter ?? ',';
      return { where, record: { fields: line.split(delimiter), text: line } };
    }
    const kind = control.trailer !== undefined ? 'trailer' : 'header';
    const sheet = this.spec.format === 'xlsx';
    const rule = describeRule(control.trailer ?? control.header, sheet);
    // a workbook's rows are numbered as the sheet shows them
    const line = sheet ? 'row' : 'line';
    const records = file.controlRecords?.() ?? [];
    if (this.stopped !== null) return { where: kind, problem: `${this.stopped}: no ${kind} can be trusted` };
    if (records.length === 0) return { where: kind, problem: `no ${kind} record (${rule})` };
    const lines = records.map((r) => r.lineNo);
    if (records.length > 1)
      return {
        where: kind,
        problem: `${records.length} records match the ${kind} rule (${rule}; ${line}s ${lines.join(', ')}): one ${kind} expected`,
      };
    const record = records[0] as ControlRecord;
    const where = `${kind} (${line} ${record.lineNo})`;
    if (kind === 'trailer' && this.lastLine > record.lineNo)
      return {
        where,
        problem: `the trailer (${line} ${record.lineNo}) is not the last record: data follows it (${line} ${this.lastLine})`,
      };
    if (kind === 'header' && this.firstLine < record.lineNo)
      return {
        where,
        problem: `the header record (${line} ${record.lineNo}) is not the first record: data comes before it (${line} ${this.firstLine})`,
      };
    return { where, record };
  }

  private compare(
    record: Pick<ControlRecord, 'fields' | 'text' | 'cellIndex'>,
    where: string,
    base: Pick<ControlOutcome, 'file' | 'read' | 'onMismatch'>,
  ): ControlOutcome {
    const control = this.spec.control;
    const claimed: ControlOutcome['claimed'] = {};
    const unreadable: string[] = [];
    const differs: string[] = [];
    const value = (field: ControlField | undefined, what: string): string | null => {
      if (field === undefined) return null;
      const v = controlValue(record, field);
      if (v === null || v === '') unreadable.push(`the ${where} has no ${what} (${describeField(field, this.spec.format === 'xlsx')})`);
      return v === null || v === '' ? null : v;
    };
    const count = value(control.count, 'count');
    if (count !== null) {
      claimed.count = count;
      if (!/^\+?\d+$/.test(count)) unreadable.push(`the ${where}'s count ${JSON.stringify(count)} is not a number`);
      else if (BigInt(count) !== BigInt(base.read.count)) differs.push(`it states ${BigInt(count)} records, ${base.read.count} were read`);
    }
    const sum = value(control.sum, 'sum');
    if (sum !== null) {
      claimed.sum = sum;
      const parsed = parseClaimedSum(sum, this.spec);
      if (typeof parsed === 'string') unreadable.push(`the ${where}'s sum ${JSON.stringify(sum)} is not an amount: ${parsed}`);
      else if (!decimalEquals(parsed, this.sum))
        differs.push(`it states a sum of ${sum}, the amounts read sum to ${formatDecimal(this.sum)}`);
    }
    const bytes = value(control.bytes, 'byte count');
    if (bytes !== null) {
      claimed.bytes = bytes;
      if (!/^\+?\d+$/.test(bytes)) unreadable.push(`the ${where}'s byte count ${JSON.stringify(bytes)} is not a number`);
      else if (BigInt(bytes) !== BigInt(base.read.bytes ?? 0))
        differs.push(`it states ${BigInt(bytes)} bytes, the file has ${base.read.bytes ?? 0}`);
    }
    const sha256 = value(control.sha256, 'SHA-256');
    if (sha256 !== null) {
      claimed.sha256 = sha256;
      if (!/^[0-9a-f]{64}$/i.test(sha256)) unreadable.push(`the ${where}'s SHA-256 ${JSON.stringify(sha256)} is not 64 hexadecimal digits`);
      else if (sha256.toLowerCase() !== base.read.sha256)
        differs.push(`it states SHA-256 ${sha256}, the file's is ${base.read.sha256 ?? 'not known'}`);
    }
    if (unreadable.length > 0) return { ...base, where, status: 'refused', claimed, problems: unreadable };
    return { ...base, where, status: differs.length > 0 ? 'mismatch' : 'ok', claimed, problems: differs };
  }
}

/** The stated sum read with the amount column's number rules (decimal and group separators, negative signs); or why not. */
function parseClaimedSum(text: string, spec: LoadProfileSpec): DecimalSum | string {
  const amount = spec.columns.amount;
  const canonical = amountConverter(amount, 'control sum', { code: undefined, sign: '' })(text);
  if (typeof canonical === 'string') return parseDecimal(canonical) ?? `not a decimal number (${canonical})`;
  // a total may carry more decimals than an order's amount (5380.500): the same separators, any scale
  const sign = /^[+-]/.exec(text)?.[0] ?? '';
  const plain = canonicalAmount(text.slice(sign.length), amount.decimal ?? '.', amount.group, groupCodes(amount.group));
  const parsed = plain === null ? null : parseDecimal(`${sign === '-' ? '-' : ''}${plain}`);
  return parsed ?? canonical.error;
}

/** The first line of a control file that is not blank ('' when none); null when there is no such file. */
function readControlLine(path: string): string | null {
  let text: string;
  try {
    if (!statSync(path).isFile()) return null;
    text = readFileSync(path, 'utf8');
  } catch {
    return null;
  }
  return (
    text
      .replace(/^\uFEFF/, '')
      .split(/\r\n|\r|\n/)
      .find((l) => l.trim() !== '')
      ?.trim() ?? ''
  );
}

function describeField(field: ControlField, sheet = false): string {
  // a column letter as a sheet shows it, a header name quoted
  if (sheet && field.column !== undefined)
    return `column ${typeof field.column === 'number' || /^[A-Z]{1,3}$/.test(field.column) ? field.column : JSON.stringify(field.column)}`;
  return typeof field.column === 'string'
    ? `path ${JSON.stringify(field.column)}`
    : field.column !== undefined
      ? `field ${field.column}`
      : `at ${JSON.stringify(field.at)}`;
}

function describeRule(rule: ControlSpec['trailer'], sheet: boolean): string {
  if (rule === undefined) return '';
  const where = sheet
    ? describeField({ column: Array.isArray(rule.column) ? rule.column.join('|') : rule.column }, true)
    : typeof rule.column === 'string'
      ? `path ${JSON.stringify(rule.column)}`
      : rule.column !== undefined
        ? `field ${String(rule.column)}`
        : `at ${JSON.stringify(rule.at)}`;
  if (rule.equals !== undefined) return `${where} equals ${JSON.stringify(rule.equals)}`;
  return `${where} ${rule.in !== undefined ? 'in' : 'not in'} ${JSON.stringify(rule.in ?? rule.not_in)}`;
}

/** One line for logs, the report and the failed-dir note: which file, what it claims, what was read. */
export function controlSummary(o: ControlOutcome): string {
  const claimed = [
    o.claimed.count !== undefined ? `count ${o.claimed.count}` : null,
    o.claimed.sum !== undefined ? `sum ${o.claimed.sum}` : null,
    o.claimed.bytes !== undefined ? `bytes ${o.claimed.bytes}` : null,
    o.claimed.sha256 !== undefined ? `sha256 ${o.claimed.sha256}` : null,
  ].filter((v) => v !== null);
  const read = [
    `count ${o.read.count}`,
    o.read.sum !== undefined
      ? `sum ${o.read.sum}${o.read.amountsUnread ? ` (${o.read.amountsUnread} line(s) without a readable amount)` : ''}`
      : null,
    o.read.bytes !== undefined ? `bytes ${o.read.bytes}` : null,
    o.read.sha256 !== undefined ? `sha256 ${o.read.sha256}` : null,
  ].filter((v) => v !== null);
  const verdict =
    o.status === 'ok' ? 'control totals agree' : o.status === 'mismatch' ? 'control totals DIFFER' : 'control totals cannot be checked';
  return `${o.file}: ${verdict}: ${o.where} states ${claimed.length > 0 ? claimed.join(', ') : 'nothing readable'}; read ${read.join(', ')}${o.problems.length > 0 ? ` (${o.problems.join('; ')})` : ''}`;
}

/** What a load would do with a file, as a dry run or `preview` says it after controlSummary. */
export function controlWouldDo(o: ControlOutcome): string {
  if (o.status === 'ok') return 'a load would merge it';
  if (o.onMismatch === 'warn') return 'a load would warn and merge it (on_mismatch: warn)';
  return o.status === 'mismatch'
    ? 'a load would stage its rows HELD: nothing of it merged until `order-loader accept <load> --reason "…"` (exit 1)'
    : 'a load would refuse it before staging (exit 1)';
}

/** Whether a load stops at this file's control totals (held or refused, exit 1). */
export function controlStops(o: Pick<ControlOutcome, 'status' | 'onMismatch'> | undefined): boolean {
  return o !== undefined && o.status !== 'ok' && o.onMismatch === 'hold';
}
