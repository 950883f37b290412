import { EXIT_OK } from '../../pipeline/outcome.js';
import { print, type CommandSpec } from '../command.js';
import { defaultConnectTimeoutMs, defaultLockTimeoutMs } from '../options.js';

export const serve: CommandSpec = {
  usage: {
    label: 'serve',
    summary: `the review page: status, rejected rows beside their raw lines, one row's history;
with --allow-edit correct and resubmit rows (audited as retry); --listen (default
127.0.0.1:8080), --token-file off loopback`,
    synopsis: 'serve [--listen <host:port>] [--allow-edit] [--operator <name> | --operator-header <name>] [--token-file <path>]',
    about: `A server-rendered review page (docs/review-page.md) until interrupted. pglite:<dir> is opened per burst of requests and
closed 2 s after the last one, so a load waits at most that long; a request while a load holds it says so (--lock-timeout, default 1s).`,
    options: ['listen', 'allow-edit', 'operator', 'operator-header', 'token-file'],
    exitCodes: 'Exit codes: 0 stopped by a signal; 1 could not start (address, token, database).',
  },
  async run(ctx) {
    const { options } = ctx;
    // imported here: every other command starts without the review page's server (hono) and pages
    const { startReview } = await import('../../serve/index.js');
    const server = await startReview({
      db: options.db,
      env: ctx.session.io.env,
      logger: ctx.logger,
      listen: options.listen,
      allowEdit: options['allow-edit'],
      operator: options.operator,
      operatorHeader: options['operator-header'],
      tokenFile: options['token-file'],
      lockTimeoutMs: options['lock-timeout'] ?? defaultLockTimeoutMs('serve'),
      connectTimeoutMs: options['connect-timeout'] ?? defaultConnectTimeoutMs('serve'),
    });
    print(ctx.session, `order-loader serve: ${server.url}${options['allow-edit'] ? ' (edits enabled)' : ' (read-only)'}`);
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await server.close();
    return EXIT_OK;
  },
};
