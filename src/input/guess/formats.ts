/**
 * guess: files it recognises but does not read as order text, each said in one line with what
 * to do: a workbook (xlsx, xls, ods), a PDF, a zip archive, JSON or JSON Lines. Pure: the first
 * bytes (magic numbers; the names inside a zip) or the decoded text.
 */

const startsWith = (bytes: Uint8Array, magic: readonly number[]): boolean => magic.every((b, i) => bytes[i] === b);
const latin = (bytes: Uint8Array, end: number): string => Buffer.from(bytes.subarray(0, Math.min(end, bytes.length))).toString('latin1');

const SAVE_AS = 'save it as an Excel Workbook (File › Save As › .xlsx) or the sheet as CSV UTF-8, and guess that file';

/** Whether a file's first bytes are those of an xlsx workbook (a zip whose first names are a workbook's). */
export function isWorkbookStart(bytes: Uint8Array): boolean {
  if (!startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return false;
  const head = latin(bytes, 4096);
  return !head.includes('application/vnd.oasis.opendocument') && (head.includes('xl/') || head.includes('[Content_Types].xml'));
}

/** What a binary file is, as one line with what to do; null when it is none of those recognised. */
export function binaryFormat(bytes: Uint8Array): string | null {
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) {
    const head = latin(bytes, 4096);
    if (head.includes('application/vnd.oasis.opendocument.spreadsheet'))
      return `an OpenDocument spreadsheet (ods), not a text file: order-loader reads CSV, fixed-width text, JSON Lines and xlsx workbooks; ${SAVE_AS}`;
    // guess drafts a profile of a workbook read from its own file (guessProfile): this one came compressed
    if (head.includes('xl/') || head.includes('[Content_Types].xml'))
      return 'an Excel workbook (xlsx) inside gzip: decompress it (gunzip) and guess the .xlsx itself (guess drafts a profile of format: xlsx)';
    return 'a zip archive, not a text file: unpack it and guess each file in it (gzip files are read as they are)';
  }
  if (startsWith(bytes, [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]))
    return `an Excel 97-2003 workbook (xls), a password-protected workbook or another OLE document, not a text file: order-loader reads xlsx workbooks (format: xlsx) without a password, CSV and text; ${SAVE_AS}`;
  if (startsWith(bytes, [0x25, 0x50, 0x44, 0x46, 0x2d]))
    return 'a PDF document, not a text file: order-loader reads CSV, fixed-width text, JSON Lines and xlsx workbooks; ask the partner for an export of the orders in one of those';
  return null;
}

/**
 * Whether decoded text is JSON Lines or a JSON document, as one line with what to do; null when it
 * is neither. `encoding`: what the text was decoded from; JSON Lines in UTF-8 is drafted, not said
 * here (json-sample.ts), so JSON Lines met here is in another encoding, which its reader does not read.
 */
export function jsonFormat(text: string, complete: boolean, encoding = 'utf-8'): string | null {
  const trimmed = text.trimStart();
  if (!trimmed.startsWith('{') && !trimmed.startsWith('[')) return null;
  const lines = text.split(/\r?\n|\r/).filter((l) => l.trim() !== '');
  // the sample's last line may be cut
  const whole = complete ? lines : lines.slice(0, -1);
  const objects = whole.filter((l) => {
    try {
      const v: unknown = JSON.parse(l);
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    } catch {
      return false;
    }
  }).length;
  const what =
    'not CSV: order-loader reads JSON Lines (one object per line, format: jsonl), not one JSON document; export the orders one object per line, or as CSV';
  if (whole.length > 0 && objects === whole.length)
    return encoding === 'utf-8'
      ? `JSON Lines (one JSON object per line, ${objects} in the sample) that guess cannot draft a profile of; write one with format: jsonl and each field by its path into the object (docs/files.md, examples/profiles/web-orders.yaml)`
      : `JSON Lines (one JSON object per line, ${objects} in the sample) in ${encoding}, not UTF-8: the JSON Lines reader (format: jsonl) reads UTF-8, the encoding of JSON: convert the file to UTF-8 (iconv -f ${encoding} -t UTF-8) and guess that file`;
  if (complete) {
    try {
      JSON.parse(text);
      return `a JSON document, ${what}`;
    } catch {
      return null;
    }
  }
  return trimmed.startsWith('[{') || /^\{\s*"/.test(trimmed) ? `a JSON document (by its start), ${what}` : null;
}
