/** What a profile of `format: jsonl` may not say, and its paths checked (src/input/formats/json-path.ts). */
import { parseJsonPath } from '../formats/json-path.js';

interface JsonlSpecPart {
  delimiter?: string | undefined;
  quote?: string | undefined;
  escape?: string | undefined;
  header?: boolean | undefined;
  units?: string | undefined;
  comment?: string | undefined;
  skip_lines: number;
  encoding: string;
  columns: Record<string, { column?: string | number | string[] | undefined }>;
  when?: { column?: string | number | string[] | undefined } | undefined;
  control?: Partial<
    Record<'trailer' | 'header' | 'count' | 'sum' | 'bytes' | 'sha256', { column?: string | number | string[] | undefined }>
  >;
}

export function jsonlSpecProblems(p: JsonlSpecPart, issue: (path: Array<string | number>, message: string) => void): void {
  for (const key of ['delimiter', 'quote', 'escape', 'header', 'units', 'comment'] as const)
    if (p[key] !== undefined) issue([key], `a ${key} has no meaning for format: jsonl`);
  if (p.skip_lines !== 0) issue(['skip_lines'], 'format: jsonl reads every line as an object: no skip_lines');
  if (p.encoding !== 'utf-8') issue(['encoding'], 'JSON text is UTF-8: format: jsonl reads no other encoding');
  const check = (path: Array<string | number>, ref: string | number | string[] | undefined): void => {
    if (ref === undefined) return;
    if (typeof ref === 'number') {
      issue(path, 'format: jsonl reads a field by its path into the object (customer.id, lines[0].sku), not by number');
      return;
    }
    (typeof ref === 'string' ? [ref] : ref).forEach((text, i) => {
      const parsed = parseJsonPath(text);
      if ('problem' in parsed) issue(typeof ref === 'string' ? path : [...path, i], parsed.problem);
    });
  };
  for (const [name, c] of Object.entries(p.columns)) check(['columns', name, 'column'], c.column);
  check(['when', 'column'], p.when?.column);
  // a control record's rule and figures are paths too (a control file's line is read by field number)
  if (p.control !== undefined && (p.control.trailer !== undefined || p.control.header !== undefined))
    for (const key of ['trailer', 'header', 'count', 'sum', 'bytes', 'sha256'] as const)
      if (typeof p.control[key]?.column === 'string') check(['control', key, 'column'], p.control[key].column);
}
