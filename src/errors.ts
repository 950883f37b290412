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

/**
 * A file's claim (src/pipeline/file-claim.ts) ended while its run still staged the file: the
 * claim's session was ended (terminated, timed out, its connection dropped). The batch that saw
 * it rolled back; another run may take the file over, so this run stops, as a transient failure
 * (exit 1): run it again, it resumes the file after its last committed batch, or skips it.
 */
export class FileClaimLostError extends RunAbortedError {
  constructor(file: string, line: number) {
    super(
      `${file}: this run's claim on the file ended while it staged it (its database session was ended: terminated, timed out or disconnected); staging stopped, its batch of lines up to ${line} rolled back; run the command again (it resumes the file after its last committed batch, or skips it)`,
      'unreachable',
    );
  }
}
