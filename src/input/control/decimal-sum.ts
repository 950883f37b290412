/**
 * Exact decimal sums of amount texts (control totals): a bigint of units at the largest scale
 * seen, so that 0.1 + 0.2 is 0.3 and 20-digit totals stay exact.
 */
export interface DecimalSum {
  units: bigint;
  scale: number;
}

export const ZERO_SUM: DecimalSum = { units: 0n, scale: 0 };

/** A canonical amount (`-1234.5`, `12`) as units and scale; null when it is not one. */
export function parseDecimal(text: string): DecimalSum | null {
  const m = /^([+-]?)(\d+)(?:\.(\d*))?$/.exec(text.trim());
  if (m === null) return null;
  const fraction = m[3] ?? '';
  const units = BigInt(`${m[2] ?? '0'}${fraction}`);
  return { units: m[1] === '-' ? -units : units, scale: fraction.length };
}

function rescale(d: DecimalSum, scale: number): bigint {
  return d.units * 10n ** BigInt(scale - d.scale);
}

export function addDecimal(a: DecimalSum, b: DecimalSum): DecimalSum {
  const scale = Math.max(a.scale, b.scale);
  return { units: rescale(a, scale) + rescale(b, scale), scale };
}

export function decimalEquals(a: DecimalSum, b: DecimalSum): boolean {
  const scale = Math.max(a.scale, b.scale);
  return rescale(a, scale) === rescale(b, scale);
}

/** The sum as text with at least two decimals (`16399.50`, `-0.05`, `3.125`). */
export function formatDecimal(d: DecimalSum): string {
  const scale = Math.max(2, d.scale);
  const units = rescale(d, scale);
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}
