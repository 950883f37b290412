/**
 * Control characters in a value that came from outside (a file name, a source_key, a database
 * message) would otherwise act on the terminal or forge lines of a human-readable output: a
 * newline starts a line that looks like ours, ESC and the C1 CSI begin terminal sequences.
 * Every such value is shown with them escaped: \n, \r, \t as themselves, the others as \xNN or
 * \u{NNNN}. The backslash is left as it is (a Windows path stays readable); JSON outputs need
 * none of this, JSON.stringify escapes what JSON requires.
 */
// C0, DEL, C1, and the Unicode line/paragraph separators and bidi overrides that reorder text
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const named = NAMED[c];
    if (named !== undefined) return named;
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}
