/**
 * SIGINT/SIGTERM: the current chunk finishes or rolls back, then the run stops (the command's
 * AbortSignal). A second signal cancels the running statements and exits; the database rolls
 * the open transactions back.
 */
import { EXIT_FAILED } from '../pipeline/outcome.js';
import type { Session } from './command.js';

/**
 * `exitingNow`: said just before the process exits on a second signal (stderr, and the --json
 * document). Returns `finished(code)`, called once the command has ended with its exit code
 * (its report written): a signal after that ends the process at once with that code, so that the
 * exit code is always the one the report gives (a second signal that came in after the report
 * of a completed run said "exit code 2" ended it with 1).
 */
export function stopOnSignals(
  session: Session,
  controller: AbortController,
  exitingNow: (message: string) => void,
): { finished(code: number): void } {
  let signals = 0;
  let exitCode: number | null = null;
  const onSignal = (name: string) => {
    if (exitCode !== null) process.exit(exitCode);
    signals++;
    if (signals > 2 || (signals === 2 && session.cancelRunning === undefined)) {
      exitingNow(`${name} again: exiting now (the open transaction rolls back)`);
      process.exit(EXIT_FAILED);
    }
    if (signals === 2) {
      // Exiting alone is not enough: a backend blocked on a lock does not notice that our end
      // of the connection is gone, and keeps waiting with the chunk's row locks held.
      exitingNow(`${name} again: cancelling the running statements and exiting now (the open transactions roll back)`);
      const cancelled = session.cancelRunning?.() ?? Promise.resolve();
      void Promise.race([cancelled, new Promise((resolve) => setTimeout(resolve, 3000))]).finally(() => process.exit(EXIT_FAILED));
      return;
    }
    process.stderr.write(
      `order-loader: ${name}: finishing the current chunk, then stopping${session.blockedChunkNote} (send again to exit at once)\n`,
    );
    controller.abort();
  };
  process.on('SIGINT', () => onSignal('SIGINT'));
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  return {
    finished(code) {
      exitCode = code;
    },
  };
}
