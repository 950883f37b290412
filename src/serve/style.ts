/** The page's one stylesheet, served from the package itself (/assets/page.css): nothing is fetched from outside. */
export const PAGE_CSS = `
:root { color-scheme: light; font-family: system-ui, sans-serif; font-size: 15px; }
body { margin: 0; color: #1d2327; background: #f6f7f7; }
header { background: #1d2327; color: #fff; padding: .6rem 1.2rem; display: flex; gap: 1.5rem; align-items: baseline; }
header a { color: #fff; text-decoration: none; }
header .db { margin-left: auto; color: #c3c4c7; font-size: .85rem; }
main { padding: 1rem 1.2rem; max-width: 110rem; }
h1 { font-size: 1.3rem; margin: .2rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.4rem 0 .5rem; }
table { border-collapse: collapse; background: #fff; width: 100%; }
th, td { border: 1px solid #dcdcde; padding: .3rem .5rem; text-align: left; vertical-align: top; }
th { background: #f0f0f1; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.text { font-family: ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; unicode-bidi: isolate; }
.more, .none, .hint { color: #646970; }
.code { font-family: ui-monospace, monospace; font-weight: 600; }
form.filters, form.edit, form.bulk { background: #fff; border: 1px solid #dcdcde; padding: .7rem; margin: .5rem 0 1rem; display: flex; flex-wrap: wrap; gap: .6rem 1rem; align-items: end; }
label { display: flex; flex-direction: column; font-size: .85rem; gap: .15rem; }
input, select { font: inherit; padding: .2rem .3rem; }
input.reason { min-width: 24rem; }
button, .button { font: inherit; padding: .3rem .8rem; background: #2271b1; color: #fff; border: 0; border-radius: 3px; cursor: pointer; text-decoration: none; }
.notice { padding: .6rem .8rem; margin: .5rem 0 1rem; border-left: 4px solid #2271b1; background: #fff; }
.notice.error { border-color: #d63638; }
.notice.ok { border-color: #00a32a; }
.pager { margin: .8rem 0; display: flex; gap: 1rem; }
footer { color: #646970; font-size: .8rem; padding: 1rem 1.2rem; }
`;
