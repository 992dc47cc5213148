/**
 * The one stylesheet of every page. A type scale (ratio 1.25) and a spacing scale (steps of 0.25rem) as custom
 * properties; colours as tokens with a dark set for `prefers-color-scheme: dark`. Every text colour meets WCAG AA
 * contrast on the backgrounds it is used on, in both themes. Wide tables and code scroll inside their own box, so no
 * page is wider than a 320 px screen.
 */
export const stylesheet = `:root {
  color-scheme: light dark;
  --font: "Inter", "Segoe UI Variable Text", "Segoe UI", system-ui, -apple-system, Roboto, "Helvetica Neue", sans-serif;
  --mono: ui-monospace, "SFMono-Regular", "Cascadia Mono", Menlo, Consolas, monospace;
  --step--1: 0.875rem; --step-0: 1rem; --step-1: 1.25rem; --step-2: 1.5625rem; --step-3: 1.953rem;
  --space-1: 0.25rem; --space-2: 0.5rem; --space-3: 0.75rem; --space-4: 1rem; --space-5: 1.5rem; --space-6: 2rem;
  --space-7: 3rem;
  --radius: 0.5rem;
  --bg: #f6f7f9; --surface: #ffffff; --surface-2: #eef1f5; --text: #1b2230; --muted: #4d5666; --border: #d5dae2;
  --accent: #1d4ed8; --accent-hover: #1e40af; --on-accent: #ffffff; --accent-soft: #e3ebfd; --focus: #c2410c;
  --danger: #b42318; --danger-soft: #fdecea; --ok: #0f6b3f; --ok-soft: #e3f4ea; --warn: #8a4b00; --warn-soft: #fdf1dc;
  --chart-articles: #2f5fd0; --chart-industry: #1c3f91; --chart-local: #d9822b; --chart-grid: #d5dae2;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0f141c; --surface: #171e29; --surface-2: #202938; --text: #e6eaf0; --muted: #a7b0bf; --border: #334055;
    --accent: #8fb4ff; --accent-hover: #b5cdff; --on-accent: #0b1220; --accent-soft: #1f2f52; --focus: #fdba74;
    --danger: #ffb4ab; --danger-soft: #3d1a17; --ok: #8fdbb0; --ok-soft: #12301f; --warn: #f7c774; --warn-soft: #3a2a0c;
    --chart-articles: #7aa2ff; --chart-industry: #9db8ff; --chart-local: #f0a65a; --chart-grid: #334055;
  }
}
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; text-size-adjust: 100%; }
body { margin: 0; font-family: var(--font); font-size: var(--step-0); line-height: 1.55; background: var(--bg);
  color: var(--text); overflow-wrap: break-word; }
a { color: var(--accent); text-underline-offset: 0.18em; text-decoration-thickness: 1px; }
a:hover { color: var(--accent-hover); text-decoration-thickness: 2px; }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; border-radius: 2px; }
.skip { position: absolute; left: -999px; top: var(--space-2); }
.skip:focus { left: var(--space-4); z-index: 2; background: var(--surface); padding: var(--space-2) var(--space-3); }
.visually-hidden { position: absolute !important; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%);
  white-space: nowrap; margin: -1px; padding: 0; border: 0; }

/* Header: the product's name, the navigation and the account; it wraps onto more lines on a phone. */
header.site { background: var(--surface); border-bottom: 1px solid var(--border); }
header.site .bar { max-width: 72rem; margin: 0 auto; padding: var(--space-3) var(--space-4); display: flex;
  flex-wrap: wrap; align-items: center; gap: var(--space-2) var(--space-5); }
.brand { display: inline-flex; align-items: center; gap: var(--space-2); font-weight: 700; font-size: var(--step-0);
  color: var(--text); text-decoration: none; letter-spacing: -0.01em; }
a.brand:hover { color: var(--text); }
.brand svg { width: 1.75rem; height: 1.75rem; flex: none; }
.brand .logo-bg { fill: var(--accent); } .brand .logo-bars { stroke: var(--on-accent); }
header.site nav ul { display: flex; flex-wrap: wrap; gap: var(--space-1); list-style: none; margin: 0; padding: 0; }
header.site nav a { display: block; padding: var(--space-1) var(--space-3); border-radius: 999px; color: var(--text);
  text-decoration: none; font-weight: 500; }
header.site nav a:hover { background: var(--surface-2); }
header.site nav a[aria-current="page"] { background: var(--accent-soft); color: var(--accent); font-weight: 650; }
header.site .account { margin-left: auto; display: flex; flex-wrap: nowrap; gap: var(--space-1) var(--space-3);
  align-items: center; font-size: var(--step--1); color: var(--muted); min-width: 0; flex: 0 1 auto; }
/* A long e-mail address is cut short rather than pushing the header onto another line. */
header.site .account > span { min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
@media (min-width: 40.01rem) { header.site .bar { flex-wrap: nowrap; } header.site nav { flex: none; } .brand { flex: none; } }
header.site .account strong { color: var(--text); }
header.site .account form { margin: 0; }
header.site .account button { white-space: nowrap; }
@media (max-width: 40rem) {
  header.site .bar { gap: var(--space-2); padding: var(--space-2) var(--space-3); }
  header.site nav { width: 100%; }
  header.site nav a { padding: var(--space-1) var(--space-2); }
  header.site .account { margin-left: 0; width: 100%; justify-content: space-between; }
}

main { max-width: 72rem; margin: 0 auto; padding: var(--space-5) var(--space-4) var(--space-7); }
main.card { max-width: 30rem; margin: var(--space-6) auto; padding: var(--space-5); background: var(--surface);
  border: 1px solid var(--border); border-radius: var(--radius); }
@media (max-width: 30rem) { main.card { margin: var(--space-4) var(--space-3); padding: var(--space-4); } }
h1, h2, h3 { line-height: 1.25; letter-spacing: -0.015em; }
h1 { font-size: var(--step-3); margin: 0 0 var(--space-4); }
main.card h1 { font-size: var(--step-2); }
h2 { font-size: var(--step-2); margin: var(--space-7) 0 var(--space-3); }
h3 { font-size: var(--step-1); margin: var(--space-5) 0 var(--space-3); }
p, ul, ol, dl { margin: 0 0 var(--space-4); }
.breadcrumb { font-size: var(--step--1); margin-bottom: var(--space-2); }
.lead { color: var(--muted); margin-top: calc(-1 * var(--space-3)); }
.muted { color: var(--muted); font-size: var(--step--1); }
code, pre, kbd { font-family: var(--mono); font-size: 0.9em; }
code { overflow-wrap: anywhere; }
pre { overflow-x: auto; padding: var(--space-3); background: var(--surface-2); border: 1px solid var(--border);
  border-radius: var(--radius); line-height: 1.45; max-width: 100%; }
pre.wrap { white-space: pre-wrap; overflow-wrap: anywhere; }
.panel { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius);
  padding: var(--space-4); margin-bottom: var(--space-4); }

/* Tables: a header row on a tinted band, numbers right-aligned in tabular figures, a wide table scrolls in its box. */
/* Positioned, so that hidden labels inside a scrolled table stay inside its box instead of widening the page. */
.table-wrap { position: relative; overflow-x: auto; background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius);
  margin-bottom: var(--space-4); }
table { border-collapse: collapse; width: 100%; font-size: var(--step--1); }
caption { text-align: left; }
th, td { text-align: left; padding: var(--space-2) var(--space-3); border-bottom: 1px solid var(--border);
  vertical-align: top; }
thead th { background: var(--surface-2); font-weight: 600; white-space: nowrap; color: var(--muted); }
tbody tr:last-child > * { border-bottom: none; }
tbody tr:hover > * { background: var(--surface-2); }
tbody th { font-weight: 600; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.url, .address { word-break: break-all; }
.address { display: block; font-weight: 400; font-size: var(--step--1); }
td.nowrap, td time { white-space: nowrap; }
/* A row's name that is a link on its own is set off by its weight; links beside other content keep their underline. */
tbody th > a:only-child { text-decoration: none; }
tbody th > a:only-child:hover { text-decoration: underline; }
/* On a phone a table shows the day of a time, so that more columns fit before the table scrolls. */
@media (max-width: 40rem) { th, td { padding: var(--space-2); } thead th { white-space: normal; }
  td time .time-of-day { display: none; } }
/* A stacked table on a phone: each row a card, each value under its column's name. */
@media (max-width: 40rem) {
  table.stack thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); }
  table.stack, table.stack tbody, table.stack tr, table.stack th, table.stack td { display: block; }
  table.stack tr { padding: var(--space-2) var(--space-3); border-bottom: 1px solid var(--border); }
  table.stack tbody tr:last-child { border-bottom: none; }
  table.stack tbody th, table.stack td { border: none; padding: var(--space-1) 0; text-align: left; }
  table.stack td { padding-left: 7rem; }
  table.stack td::before { content: attr(data-label); float: left; width: 6.5rem; margin-left: -7rem; color: var(--muted);
    font-weight: 600; }
  table.stack td::after { content: ""; display: block; clear: both; }
  table.stack tbody tr:hover > * { background: none; }
  table.stack td time .time-of-day { display: inline; }
  table.stack .on-phone { display: inline; }
}
.on-phone { display: none; }
.badge { display: inline-block; padding: 0 var(--space-2); border-radius: 999px; font-size: 0.8rem; font-weight: 600;
  background: var(--surface-2); color: var(--text); border: 1px solid var(--border); white-space: nowrap; }
.badge.published, .badge.live, .badge.ok { background: var(--ok-soft); color: var(--ok); border-color: transparent; }
.badge.scheduled, .badge.pending { background: var(--warn-soft); color: var(--warn); border-color: transparent; }
.badge.lost, .badge.failed { background: var(--danger-soft); color: var(--danger); border-color: transparent; }

/* Summary numbers. */
dl.stats { display: grid; grid-template-columns: repeat(auto-fit, minmax(10rem, 1fr)); gap: var(--space-3); }
dl.stats div { background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius);
  padding: var(--space-3) var(--space-4); }
dl.stats dt { font-size: var(--step--1); color: var(--muted); }
dl.stats dd { margin: 0; font-size: var(--step-3); font-weight: 700; font-variant-numeric: tabular-nums; }
dl.meta { display: grid; grid-template-columns: max-content minmax(0, 1fr); gap: var(--space-2) var(--space-4);
  background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius); padding: var(--space-4); }
dl.meta dt { color: var(--muted); font-size: var(--step--1); padding-top: 0.1rem; }
dl.meta dd { margin: 0; min-width: 0; overflow-wrap: anywhere; }
@media (max-width: 30rem) { dl.meta { gap: var(--space-2) var(--space-3); padding: var(--space-3); } }

/* Period picker and filters. */
.periods { display: flex; flex-wrap: wrap; gap: var(--space-2); margin-bottom: var(--space-3); padding: 0;
  list-style: none; }
.periods a, .periods strong { display: inline-block; padding: var(--space-1) var(--space-3); border-radius: 999px;
  border: 1px solid var(--border); background: var(--surface); text-decoration: none; font-weight: 500; }
.periods [aria-current] { background: var(--accent); border-color: var(--accent); color: var(--on-accent); }
.pickers { display: flex; flex-wrap: wrap; gap: var(--space-3) var(--space-5); margin-bottom: var(--space-4); }
.period-range { display: block; margin-top: var(--space-1); font-size: var(--step--1); color: var(--muted);
  font-weight: 400; letter-spacing: 0; }

/* Charts: SVG drawn on the server, coloured from these tokens, with a table beside them for screen readers. */
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 26rem), 1fr)); gap: var(--space-4); }
figure.chart { margin: 0; background: var(--surface); border: 1px solid var(--border); border-radius: var(--radius);
  padding: var(--space-4); min-width: 0; }
figure.chart figcaption { font-weight: 650; margin-bottom: var(--space-2); }
svg.chart { display: block; width: 100%; height: auto; }
svg.chart text { fill: var(--muted); font-family: var(--font); font-size: 11px; }
@media (max-width: 40rem) { figure.chart { padding: var(--space-3); } svg.chart text { font-size: 12.5px; } }
svg.chart text.value { fill: var(--text); font-weight: 600; }
svg.chart .grid { stroke: var(--chart-grid); stroke-width: 1; }
svg.chart .articles { fill: var(--chart-articles); }
svg.chart .industry { fill: var(--chart-industry); }
svg.chart .local { fill: var(--chart-local); }
.legend { display: flex; flex-wrap: wrap; gap: var(--space-1) var(--space-4); list-style: none; padding: 0;
  margin: var(--space-2) 0 0; font-size: var(--step--1); }
.legend li::before { content: ""; display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px;
  margin-right: var(--space-2); vertical-align: -0.1rem; background: var(--swatch); }
.legend .articles { --swatch: var(--chart-articles); }
.legend .industry { --swatch: var(--chart-industry); }
.legend .local { --swatch: var(--chart-local); }

/* Forms. */
label { display: block; margin: var(--space-4) 0 var(--space-1); font-weight: 600; font-size: var(--step--1); }
input, select, textarea { font: inherit; color: var(--text); background: var(--surface); padding: var(--space-2);
  border: 1px solid #7b8494; border-radius: 0.375rem; max-width: 100%; }
input[type=email], input[type=password], input[type=text], input.secret, textarea { width: 100%; }
input.secret { font-family: var(--mono); }
textarea#body { font-family: var(--mono); font-size: var(--step--1); }
.inline { display: flex; flex-wrap: wrap; gap: var(--space-2); align-items: end; margin-bottom: var(--space-3); }
.inline label { margin-top: 0; }
.inline > div { min-width: 0; }
.inline input.secret { flex: 1 1 14rem; width: auto; min-width: 0; }
.actions { display: flex; gap: var(--space-3); flex-wrap: wrap; align-items: center; margin-top: var(--space-5); }
button, a.button, .next a { font: inherit; font-weight: 600; display: inline-block; padding: var(--space-2) var(--space-4);
  border-radius: 0.375rem; border: 1px solid #7b8494; background: var(--surface); color: var(--text);
  cursor: pointer; text-decoration: none; line-height: 1.4; }
button:hover, a.button:hover { background: var(--surface-2); color: var(--text); }
button.primary, a.button.primary, .next a { background: var(--accent); border-color: var(--accent); color: var(--on-accent); }
button.primary:hover, a.button.primary:hover, .next a:hover { background: var(--accent-hover); border-color: var(--accent-hover); }
button.danger, a.button.danger { background: var(--danger); border-color: var(--danger); color: var(--surface); }
a.button.small, button.small { padding: var(--space-1) var(--space-3); font-size: var(--step--1); }
button.link { background: none; border: none; padding: 0; color: var(--accent); text-decoration: underline;
  font-weight: 500; }
button.link:hover { background: none; color: var(--accent-hover); }

/* Messages. */
.error, .warning, .notice { padding: var(--space-3) var(--space-4); border-radius: var(--radius); border: 1px solid;
  margin: 0 0 var(--space-4); }
.error, .warning { background: var(--danger-soft); color: var(--danger); border-color: var(--danger); }
.notice { background: var(--ok-soft); color: var(--ok); border-color: var(--ok); }
.error p:last-child, .notice p:last-child { margin-bottom: 0; }
.error a, .notice a { color: inherit; }

nav.pages { display: flex; flex-wrap: wrap; align-items: center; gap: var(--space-3); margin: var(--space-3) 0; }
nav.pages span { color: var(--muted); font-size: var(--step--1); }
nav.filters { display: flex; flex-wrap: wrap; gap: var(--space-2); margin-bottom: var(--space-4); }
nav.filters a, nav.filters strong { padding: var(--space-1) var(--space-3); border-radius: 999px;
  border: 1px solid var(--border); background: var(--surface); text-decoration: none; }
nav.filters strong { background: var(--accent); border-color: var(--accent); color: var(--on-accent); }

/* The article page. */
iframe.body { display: block; width: 100%; min-height: min(24rem, 60vh); border: 1px solid var(--border); border-radius: var(--radius);
  background: #ffffff; }
img.featured { max-width: min(16rem, 100%); height: auto; border-radius: 0.25rem; }
ul.protected { padding-left: var(--space-5); }
/* One block a line, so that a changed line is tinted from edge to edge. */
pre.diff { white-space: pre-wrap; overflow-wrap: anywhere; }
pre.diff > * { display: block; min-height: 1.45em; }
pre.diff del { display: block; background: var(--danger-soft); color: var(--danger); text-decoration: none; }
pre.diff ins { display: block; background: var(--ok-soft); color: var(--ok); text-decoration: none; }
pre.diff .gap { display: block; color: var(--muted); font-style: italic; }
.diff-summary { font-size: var(--step--1); }
.diff-summary .added { color: var(--ok); font-weight: 600; } .diff-summary .removed { color: var(--danger); font-weight: 600; }
.confirm { max-width: 40rem; }
`
