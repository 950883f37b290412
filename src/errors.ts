/**
 * Errors of our own. A driver error is always kept as `cause`; messages never carry bind
 * values or secrets.
 */

/** Bad input from the user (arguments, file, configuration): one clear line, exit code 1. */
export class UserError extends Error {
  override readonly name = 'UserError';
}

/** The run could not finish (database unreachable, fatal error past the retry budget, interrupted). */
export class RunAbortedError extends Error {
  override readonly name = 'RunAbortedError';
  constructor(
    message: string,
    readonly reason: 'fatal' | 'interrupted' | 'max-errors' | 'unreachable',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
