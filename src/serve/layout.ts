import { html, type Html } from './html.js';

/** What every page shows in its frame. */
export interface Frame {
  /** The database, its secret masked (OrderLoader.dbLabel). */
  dbLabel: string;
  allowEdit: boolean;
}

export type Notice = { kind: 'ok' | 'error' | 'info'; text: string };

export function notice(n: Notice | null | undefined): Html {
  return n === null || n === undefined ? html`` : html`<p class="notice ${n.kind}" role="status">${n.text}</p>`;
}

/** A whole document: no script anywhere (the Content-Security-Policy allows none), one stylesheet of our own. */
export function page(frame: Frame, title: string, body: Html): Html {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · order-loader</title>
        <link rel="stylesheet" href="/assets/page.css" />
      </head>
      <body>
        <header>
          <strong>order-loader</strong> <a href="/">Overview</a> <a href="/rejected">Rejected rows</a>
          <span class="db">${frame.dbLabel}${frame.allowEdit ? '' : ' · read-only'}</span>
        </header>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
        <footer>
          Times are UTC.
          ${frame.allowEdit ? 'Edits are enabled (--allow-edit).' : 'Read-only: start with --allow-edit to correct and resubmit rows.'}
        </footer>
      </body>
    </html> `;
}
