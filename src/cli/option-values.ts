/** The zod validators (and transforms) that the option table gives to options taking a value. */
import { z } from 'zod';

export const positiveInt = (name: string, max = 10_000_000) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= max, `${name} must be between 1 and ${max}`);

/**
 * A whole number that a JavaScript number holds exactly: above 2^53 - 1 it would be silently
 * rounded to another id (or overflow the database's bigint), so it is refused in one line.
 */
export const safeWholeNumber = (name: string) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be a whole number`)
    .refine((v) => Number.isSafeInteger(Number(v)), `${name} must be a whole number up to ${Number.MAX_SAFE_INTEGER}`)
    .transform(Number);

/** A comma-separated list of whole numbers, each between 1 and max. */
export const numberList = (name: string, max: number, example: string) =>
  z
    .string()
    .regex(/^\d+(,\d+)*$/, `${name} must be ${example}`)
    .transform((v) => v.split(',').map(Number))
    .refine((list) => list.every((n) => n >= 1 && n <= max), `${name} must be between 1 and ${max}`);

const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
type DurationUnit = keyof typeof DURATION_UNITS;

/** A duration in milliseconds: a whole number with ms, s, m or h (a bare number is in `bareUnit`). */
export const duration = (name: string, bareUnit: DurationUnit, example: string) =>
  z
    .string()
    .regex(/^\d+(ms|s|m|h)?$/, `${name} takes ${example}`)
    .transform((v) => {
      const m = /^(\d+)(ms|s|m|h)?$/.exec(v);
      return Number(m?.[1]) * DURATION_UNITS[(m?.[2] ?? bareUnit) as DurationUnit];
    });

/** The spellings the README and --help document (a few common aliases are accepted too). */
export const ENCODING_NAMES = ['utf-8', 'shift_jis', 'cp932', 'windows-31j', 'euc-jp'] as const;

export const encoding = z
  .string()
  .transform((v) => v.toLowerCase().replace(/_/g, '-'))
  .pipe(
    z.enum(['utf-8', 'utf8', 'shift-jis', 'sjis', 'cp932', 'windows-31j', 'euc-jp', 'eucjp'], {
      error: `--encoding must be one of ${ENCODING_NAMES.join(', ')}`,
    }),
  )
  .transform((v) =>
    v === 'utf-8' || v === 'utf8' ? ('utf-8' as const) : v === 'euc-jp' || v === 'eucjp' ? ('euc-jp' as const) : ('shift_jis' as const),
  );

export const delimiter = z
  .string()
  .transform((v) => (v === '\\t' || v.toLowerCase() === 'tab' ? '\t' : v))
  .refine((v) => v.length === 1 && v !== '"' && v !== '\n' && v !== '\r', '--delimiter must be one character (not a quote or newline)');

const AGO_UNITS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/**
 * A moment: an ISO date or time (2026-01-31, 2026-01-31T06:00Z), or a duration ago (30m, 12h,
 * 7d), read when the command line is; a date without a zone is UTC midnight, as Date reads it.
 */
export const sinceDate = z.string().transform((v, ctx) => {
  const ago = /^(\d+)(m|h|d)$/.exec(v);
  if (ago !== null) return new Date(Date.now() - Number(ago[1]) * AGO_UNITS[ago[2] as keyof typeof AGO_UNITS]);
  const at = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(v) ? new Date(v) : null;
  if (at === null || Number.isNaN(at.getTime())) {
    ctx.addIssue({
      code: 'custom',
      message: '--since takes a date (2026-01-31), a time (2026-01-31T06:00Z) or a duration ago (30m, 12h, 7d)',
    });
    return z.NEVER;
  }
  return at;
});
