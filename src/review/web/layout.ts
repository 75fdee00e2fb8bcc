/**
 * The frame of every review page: the document head with its nonce'd style sheet, the skip link,
 * the navigation and the sign-out form. Pages are complete HTML without JavaScript; `/app.js` only
 * refreshes the live part of the queue.
 * @module
 */
import { Html, html } from "./escape.js";
import type { Principal } from "./sessions.js";

/** The page's one style sheet, sent in a `<style>` element carrying the response's CSP nonce. */
const STYLE = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --accent: #0b57d0; --bad: #b3261e; --good: #1a7f37; --warn: #8a5a00; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--ink); background: #fff; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid #f0b400; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5em; }
.skip:focus { left: .5em; }
header { display: flex; gap: 1.5em; align-items: center; padding: .6em 1.2em; border-bottom: 1px solid var(--line); background: #f6f8fa; flex-wrap: wrap; }
header .brand { font-weight: 700; }
header nav { display: flex; gap: 1em; }
header nav a[aria-current="page"] { font-weight: 700; text-decoration: none; color: var(--ink); }
header .who { margin-left: auto; color: var(--muted); }
header form { display: inline; }
main { padding: 1em 1.2em 3em; max-width: 1200px; }
h1 { font-size: 1.4em; margin: .3em 0 .6em; }
h2 { font-size: 1.1em; margin: 1.6em 0 .5em; }
table { border-collapse: collapse; width: 100%; margin: .4em 0; }
th, td { text-align: left; vertical-align: top; padding: .35em .6em; border-bottom: 1px solid var(--line); }
th { background: #f6f8fa; font-weight: 600; }
pre, code, .mono { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; }
pre { background: #f6f8fa; border: 1px solid var(--line); padding: .7em; overflow: auto; white-space: pre-wrap; word-break: break-word; margin: .3em 0; }
.state { font-weight: 600; }
.state-pending { color: var(--warn); } .state-approved, .state-consumed { color: var(--good); } .state-denied, .state-expired { color: var(--bad); }
.notice { border-left: 4px solid var(--warn); background: #fff8e6; padding: .6em .9em; margin: .8em 0; }
.notice.bad { border-color: var(--bad); background: #fdecea; }
.notice.good { border-color: var(--good); background: #e9f7ef; }
.fail { color: var(--bad); font-weight: 600; } .ok { color: var(--good); }
form.filters { display: flex; gap: 1em; align-items: end; flex-wrap: wrap; margin: .5em 0 1em; }
label { display: block; font-weight: 600; margin-bottom: .2em; }
input[type=text], input[type=password], select { font: inherit; padding: .35em .5em; border: 1px solid #8c959f; border-radius: 4px; min-width: 12em; }
input.wide { width: min(42em, 100%); }
button { font: inherit; padding: .4em .9em; border-radius: 4px; border: 1px solid #8c959f; background: #f6f8fa; cursor: pointer; }
button.primary { background: var(--good); color: #fff; border-color: var(--good); }
button.danger { background: var(--bad); color: #fff; border-color: var(--bad); }
.decide { display: grid; grid-template-columns: repeat(auto-fit, minmax(22em, 1fr)); gap: 1.2em; }
.decide form { border: 1px solid var(--line); padding: .9em; border-radius: 6px; }
.hint { color: var(--muted); font-size: .9em; margin: .2em 0 .6em; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .25em 1em; margin: .3em 0; }
dl.facts dt { font-weight: 600; } dl.facts dd { margin: 0; word-break: break-all; }
.diff { table-layout: fixed; } .diff td { font-family: ui-monospace, Menlo, Consolas, monospace; font-size: 13px; white-space: pre-wrap; word-break: break-word; }
.diff td.removed { background: #ffebe9; } .diff td.added { background: #dafbe1; } .diff td.empty { background: #f6f8fa; }
.diff .mark { user-select: none; color: var(--muted); }
.pager { display: flex; gap: 1em; margin: .8em 0; }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
.status-line { color: var(--muted); font-size: .9em; }
`;

// our own constant text, not escaped (it holds quotes the escape would change)
const OWN_STYLE = new Html(STYLE);

/** The sections the navigation links to. */
export type Section = "queue" | "tools" | "audit" | "none";

/** One page's parts. */
export interface PageParts {
  readonly title: string;
  readonly section: Section;
  readonly body: Html;
  /** Null on the login page (no one is signed in, no navigation). */
  readonly principal: Principal | null;
}

const NAV: readonly (readonly [Section, string, string])[] = [
  ["queue", "/", "Queue"],
  ["tools", "/tools", "Tool changes"],
  ["audit", "/audit", "Audit trail"],
];

/** The whole document of a page; `nonce` is the response's CSP nonce for the style sheet. */
export function page(parts: PageParts, nonce: string): string {
  const p = parts.principal;
  const header =
    p === null
      ? html`<header><span class="brand">Tessera review</span></header>`
      : html`<header>
  <span class="brand">Tessera review</span>
  <nav aria-label="Sections">${NAV.map(
    ([s, href, label]) => html`<a href="${href}"${s === parts.section ? html` aria-current="page"` : ""}>${label}</a>`,
  )}</nav>
  <span class="who">Signed in as <strong>${p.reviewer}</strong></span>
  <form method="post" action="/logout"><input type="hidden" name="csrf" value="${p.csrf}"><button type="submit">Sign out</button></form>
</header>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${parts.title} — Tessera review</title>
<style nonce="${nonce}">${OWN_STYLE}</style>
${p === null ? "" : html`<script src="/app.js" defer></script>`}
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
${header}
<main id="main">
${parts.body}
</main>
</body>
</html>
`.text;
}
