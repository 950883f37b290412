/**
 * A driver error as one line fit for a log or a terminal: its code and message, with quoted
 * values blanked (PostgreSQL quotes the offending input in some messages, and an error line
 * must never carry a bind value).
 */
export function describeDbError(error: unknown): string {
  if (!(error instanceof Error)) return 'unknown error';
  const code = (error as { code?: unknown }).code;
  const message = error.message.split('\n')[0]?.replace(/"[^"]*"/g, '"…"').replace(/'[^']*'/g, "'…'") ?? '';
  return typeof code === 'string' && code !== '' && !message.includes(code) ? `${code} ${message}` : message;
}
