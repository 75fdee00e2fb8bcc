/**
 * The queue page: reviews of one state (pending by default) and optionally one tool, a page at a
 * time, each with its tool, a one-line reason, its age and the time left before it expires. The
 * part inside `#live` is what `/app.js` replaces when the store's stamp moves.
 * @module
 */
import { type Html, html } from "./escape.js";
import { ago, iso, left, oneLineReason } from "./words.js";
import type { ReviewRecord, ReviewState } from "../types.js";
import { REVIEW_STATES } from "../types.js";

/** Reviews on one queue page. */
export const QUEUE_PAGE_SIZE = 50;

/** What the queue shows: a state (`all` for every state), a tool or every tool, and a page (1-based). */
export interface QueueView {
  readonly state: ReviewState | "all";
  readonly tool: string;
  readonly page: number;
}

function href(v: QueueView, page: number): string {
  const q = new URLSearchParams();
  if (v.state !== "pending") q.set("state", v.state);
  if (v.tool !== "") q.set("tool", v.tool);
  if (page !== 1) q.set("page", String(page));
  const s = q.toString();
  return s === "" ? "/" : `/?${s}`;
}

function row(r: ReviewRecord, now: number): Html {
  const timeLeft =
    r.state === "pending" && r.expires_at !== null
      ? html`<time datetime="${iso(r.expires_at)}">${left(r.expires_at, now)}</time>`
      : r.state === "approved" && r.expires_at !== null
        ? html`approval usable for ${left(r.expires_at, now)}`
        : html`—`;
  return html`<tr>
  <td><a class="mono" href="/reviews/${encodeURIComponent(r.id)}">${r.id}</a></td>
  <td><span class="state state-${r.state}">${r.state}</span></td>
  <td class="mono">${r.tool}</td>
  <td>${oneLineReason(r)}</td>
  <td><time datetime="${iso(r.created_at)}">${ago(r.created_at, now)}</time></td>
  <td>${timeLeft}</td>
</tr>`;
}

/** The live part of the queue: the count, the table and the pager. */
export function queueLive(v: QueueView, reviews: readonly ReviewRecord[], total: number, now: number): Html {
  const pages = Math.max(1, Math.ceil(total / QUEUE_PAGE_SIZE));
  const what = `${v.state === "all" ? "" : `${v.state} `}review${total === 1 ? "" : "s"}${v.tool === "" ? "" : ` of ${v.tool}`}`;
  const first = (v.page - 1) * QUEUE_PAGE_SIZE + 1;
  const shown =
    total === 0
      ? html`<p>No ${what}.</p>`
      : html`<p role="status">${total} ${what}${pages > 1 ? `, showing ${first}–${first + reviews.length - 1}` : ""}.</p>
<table>
<caption class="status-line">Oldest first; a held call expires unreviewed when its time runs out.</caption>
<thead><tr><th scope="col">Review</th><th scope="col">State</th><th scope="col">Tool</th><th scope="col">Why it is held</th><th scope="col">Held</th><th scope="col">Time left</th></tr></thead>
<tbody>
${reviews.map((r) => row(r, now))}
</tbody>
</table>`;
  const pager =
    pages > 1
      ? html`<nav class="pager" aria-label="Pages">
${v.page > 1 ? html`<a href="${href(v, v.page - 1)}" rel="prev">Previous page</a>` : ""}
<span>Page ${v.page} of ${pages}</span>
${v.page < pages ? html`<a href="${href(v, v.page + 1)}" rel="next">Next page</a>` : ""}
</nav>`
      : "";
  return html`${shown}${pager}`;
}

/** The queue page's body: the filters, then the live part. */
export function queueBody(v: QueueView, reviews: readonly ReviewRecord[], total: number, now: number): Html {
  const states: readonly (ReviewState | "all")[] = [...REVIEW_STATES, "all"];
  return html`<h1>Review queue</h1>
<form class="filters" method="get" action="/" role="search" aria-label="Filter the queue">
  <div><label for="state">State</label>
  <select id="state" name="state">${states.map(
    (s) => html`<option value="${s}"${s === v.state ? html` selected` : ""}>${s}</option>`,
  )}</select></div>
  <div><label for="tool">Tool</label>
  <input type="text" id="tool" name="tool" value="${v.tool}" placeholder="every tool" autocomplete="off"></div>
  <div><button type="submit">Filter</button></div>
</form>
<section id="live" data-live="queue" aria-label="Reviews">
${queueLive(v, reviews, total, now)}
</section>`;
}
