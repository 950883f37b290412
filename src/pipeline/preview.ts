/**
 * `order-loader preview`: how a file would be read, line by line, without a
 * database and writing nothing. It is a dry run (dryRunFile, src/pipeline/stage.ts: the reader,
 * the profile's mapping, parseOrderRecord and validateOrder of a real load) watched from the
 * inside: the reader tells each line it passes over and the text it found for each field
 * (ReadObserver, src/input/order-file.ts), the profile's mapping what it read of that text
 * (Mapping.normalize), the dry run how each data line was judged. Nothing here reads, maps or
 * parses a value on its own, so what preview shows is what a load stages and logs.
 *
 * The first `rows` lines are kept for display; the totals, the dry run's counts and the exit
 * code cover the whole file. Memory: the dry run's (one entry per distinct source_key).
 */
import { controlTallyOf, type ControlOutcome } from '../input/control/control-check.js';
import { discardedBy } from '../input/profile/discard-hint.js';
import { checkFileEncoding } from '../input/encoding-sniff.js';
import { fileEncoding, openOrderFile, type FileEncoding, type PassedOverReason } from '../input/order-file.js';
import { ORDER_COLUMNS, type OrderColumn, type ParsedOrder } from '../input/order-record.js';
import type { LoadProfile } from '../input/profile/load-profile.js';
import { compileMapping } from '../input/profile/mapping.js';
import { dryRunExitCode } from './outcome.js';
import { dryRunFile, type DryRunCounts, type DryRunLine } from './dry-run-file.js';

export interface PreviewOptions {
  /** The file's load profile; none: the built-in format, read with `encoding` and `delimiter`. */
  profile?: LoadProfile | undefined;
  encoding?: FileEncoding | undefined;
  delimiter?: string | undefined;
  /** How many lines are kept for display (the first ones of the file); the totals cover every line. */
  rows: number;
}

/** One of the five fields of a data line. */
export interface PreviewField {
  /** The text the format reader found (null: not in the file, a profile's `const`). */
  raw: string | null;
  /** As the mapping reads it: trimmed, `null_if` and `normalize` applied (null: missing, or not in the file). */
  normalized: string | null;
  /** The value the stage row would hold (null: none, SQL NULL). */
  staged: string | null;
  /** Where the staged value comes from when not from the file: the profile's `const` or `default`. */
  from?: 'const' | 'default' | 'file_name' | 'amount_sign';
}

export type PreviewFields = Record<OrderColumn, PreviewField>;

export type PreviewLine =
  /** Not a data line: a banner line (skip_lines), a comment, the header. */
  | { line: number; kind: 'skip'; reason: Exclude<PassedOverReason, 'when'>; raw: string }
  /** Discarded by the profile's `when` (`value`: the text it tested): counted apart, never an error. */
  | { line: number; kind: 'discard'; reason: 'when'; value: string; raw: string }
  /** Staged with its values (READY); `invalid`: the business rule it breaks, ERROR by validation before the MERGE. */
  | { line: number; endLine?: number; kind: 'stage'; raw: string; fields: PreviewFields; invalid: { code: string; message: string } | null }
  /**
   * Rejected: a PARSE error-log row with this code and message. `stagedAsError`: its source_key
   * is usable, so a stage row ERROR holds the key (and no values). `fields`: absent when the
   * line could not be split into fields (field count, encoding, a CSV or gzip error).
   * `stopsFile`: the file cannot be read past it.
   */
  | {
      line: number;
      endLine?: number;
      kind: 'reject';
      raw: string;
      code: string;
      message: string;
      stagedAsError: boolean;
      fields?: PreviewFields;
      stopsFile?: true;
    };

export interface PreviewTotals {
  /** Every line counted below (blank lines are not lines of the file's content and are not counted). */
  lines: number;
  /** Data lines: as a load counts `read` (stage + reject). */
  read: number;
  /** Data lines that would be staged with their values. */
  stage: number;
  /** Of them, lines that break a business rule: ERROR by validation before the MERGE. */
  invalid: number;
  /** Data lines rejected (PARSE error-log rows). */
  rejected: number;
  /** Of them, lines staged as ERROR (their source_key is usable). */
  stagedAsError: number;
  /** Lines discarded by the profile's `when`. */
  discarded: number;
  /** Lines that are not data lines, by why. */
  skipped: { skip_lines: number; comment: number; header: number; control?: number };
  /** Each error code a line would get: rejected lines (PARSE) and rule breaks (VALIDATE), with its first line. */
  byCode: Array<{ code: string; phase: 'PARSE' | 'VALIDATE'; lines: number; firstLine: number }>;
}

export interface PreviewResult {
  file: string;
  /** The profile the file is read with; null: the built-in format. */
  profile: { name: string; sha256: string } | null;
  /** The most lines shown (--rows), and the lines shown. */
  rows: number;
  lines: PreviewLine[];
  totals: PreviewTotals;
  /** The counts `load --dry-run` reports for this file (per distinct source_key where it says so). */
  dryRun: DryRunCounts;
  /** The file's control totals (its profile's `control:`), checked on the whole file as a load checks them. */
  control?: ControlOutcome;
  /** The file could not be read past this line: a load would stop there (exit 1). */
  stoppedAt: { line: number; message: string } | null;
  /** Header names the loader does not use. */
  extraColumns: string[];
  /** What the reader says of the file as a whole (a date mask that reads none of the first lines; `when` discarding every line). */
  warnings: string[];
  /** The exit code `load --dry-run` gives for this file. */
  exitCode: number;
}

const STAGED_VALUE: Record<OrderColumn, keyof ParsedOrder> = {
  source_key: 'sourceKey',
  customer_id: 'customerId',
  order_date: 'orderDate',
  amount: 'amount',
  currency: 'currency',
};

/** Read a whole file as `load --dry-run` does, keeping the first `rows` lines as they were judged. */
export async function previewFile(path: string, options: PreviewOptions): Promise<PreviewResult> {
  const profile = options.profile;
  const encoding = options.encoding ?? 'utf-8';
  const delimiter = options.delimiter ?? ',';
  await checkFileEncoding(path, await fileEncoding(path, profile?.spec.encoding ?? encoding), profile?.spec.format);
  const mapping = profile === undefined ? null : compileMapping(profile, {}, undefined, path);
  const warnings: string[] = [];
  const lines: PreviewLine[] = [];
  const totals: PreviewTotals = {
    lines: 0,
    read: 0,
    stage: 0,
    invalid: 0,
    rejected: 0,
    stagedAsError: 0,
    discarded: 0,
    skipped: { skip_lines: 0, comment: 0, header: 0 },
    byCode: [],
  };
  const codes = new Map<string, PreviewTotals['byCode'][number]>();
  const countCode = (code: string, phase: 'PARSE' | 'VALIDATE', line: number): void => {
    const known = codes.get(`${phase} ${code}`);
    if (known !== undefined) known.lines++;
    else codes.set(`${phase} ${code}`, { code, phase, lines: 1, firstLine: line });
  };
  const keep = (line: PreviewLine): void => {
    if (lines.length < options.rows) lines.push(line);
  };
  // the fields the reader found for the record it is about to hand over
  let read: { lineNo: number; raw: Record<OrderColumn, string | null> } | null = null;

  const fieldsOf = (
    raw: Record<OrderColumn, string | null>,
    mapped: Record<OrderColumn, string>,
    staged: ParsedOrder | { sourceKey: string | null } | null,
  ): PreviewFields => {
    // the built-in format: the values as parseOrderRecord reads them (trimmed; the errors
    // export's formula guard already removed by the reader)
    const normalized = mapping === null ? null : mapping.normalize((c) => raw[c]);
    const out = {} as PreviewFields;
    for (const c of ORDER_COLUMNS) {
      const n = normalized === null ? mapped[c].trim() || null : normalized[c];
      const value = staged === null ? null : ((staged as Partial<ParsedOrder>)[STAGED_VALUE[c]] ?? null);
      const spec = profile?.spec.columns[c];
      const from =
        spec?.const !== undefined
          ? 'const'
          : spec?.file_group !== undefined
            ? 'file_name'
            : spec?.amount_sign !== undefined
              ? 'amount_sign'
              : spec?.default !== undefined && n === null && value !== null
                ? 'default'
                : undefined;
      out[c] = { raw: raw[c], normalized: n, staged: value, ...(from === undefined ? {} : { from }) };
    }
    return out;
  };

  const onLine = (judged: DryRunLine): void => {
    totals.lines++;
    totals.read++;
    const item = judged.item;
    const span = item.endLine !== item.lineNo ? { endLine: item.endLine } : {};
    const raw = read !== null && read.lineNo === item.lineNo ? read.raw : null;
    read = null;
    if (!('parsed' in judged)) {
      const reject = judged.item;
      totals.rejected++;
      countCode(reject.code, 'PARSE', reject.lineNo);
      if (lines.length < options.rows)
        keep({
          line: reject.lineNo,
          ...span,
          kind: 'reject',
          raw: reject.raw,
          code: reject.code,
          message: reject.message,
          stagedAsError: false,
          ...(reject.stopsFile ? { stopsFile: true as const } : {}),
        });
      return;
    }
    const { parsed, invalid } = judged;
    const record = judged.item;
    if (parsed.ok) {
      totals.stage++;
      if (invalid !== null) {
        totals.invalid++;
        countCode(invalid.code, 'VALIDATE', record.lineNo);
      }
      if (lines.length < options.rows)
        keep({
          line: record.lineNo,
          ...span,
          kind: 'stage',
          raw: record.raw,
          fields: fieldsOf(raw ?? record.fields, record.fields, parsed.order),
          invalid,
        });
      return;
    }
    totals.rejected++;
    const stagedAsError = parsed.sourceKey !== null;
    if (stagedAsError) totals.stagedAsError++;
    countCode(parsed.error.code, 'PARSE', record.lineNo);
    if (lines.length < options.rows)
      keep({
        line: record.lineNo,
        ...span,
        kind: 'reject',
        raw: record.raw,
        code: parsed.error.code,
        message: parsed.error.message,
        stagedAsError,
        fields: fieldsOf(raw ?? record.fields, record.fields, { sourceKey: parsed.sourceKey }),
      });
  };

  const file = await openOrderFile(path, {
    encoding,
    delimiter,
    profile,
    onWarning: (message) => warnings.push(message),
    observe: {
      passedOver({ lineNo, raw, reason, value }) {
        totals.lines++;
        if (reason === 'when') {
          totals.discarded++;
          keep({ line: lineNo, kind: 'discard', reason, value: value ?? '', raw });
        } else {
          totals.skipped[reason] = (totals.skipped[reason] ?? 0) + 1;
          keep({ line: lineNo, kind: 'skip', reason, raw });
        }
      },
      fieldsRead(lineNo, raw) {
        read = { lineNo, raw };
      },
    },
  });
  const extraColumns = file.header.extraColumns;
  const dry = await dryRunFile(file, onLine, controlTallyOf(profile?.spec));
  totals.byCode = [...codes.values()];
  if (profile !== undefined && dry.discarded !== undefined && dry.discarded > 0 && dry.counts.read === 0)
    warnings.push(
      `${path}: profile ${profile.name} discarded every line (${dry.discarded}): nothing would be loaded from it (${discardedBy(profile, dry.discarded, file.discardedByWhen?.() ?? 0)})`,
    );
  return {
    file: path,
    profile: profile === undefined ? null : { name: profile.name, sha256: profile.sha256 },
    rows: options.rows,
    lines,
    totals,
    dryRun: dry.counts,
    ...(dry.control === undefined ? {} : { control: dry.control }),
    stoppedAt: dry.stoppedAt,
    extraColumns,
    warnings,
    exitCode: dryRunExitCode([dry], 'load'),
  };
}
