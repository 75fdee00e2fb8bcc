/**
 * The audit trail: decisions, reviews and forwards, newest first, searchable by tool and review id
 * (and by event type). The log is read through src/audit's reading side, as `tessera audit export` reads it.
 * @module
 */
import { printable } from "../../platform/printable.js";
import { type Html, html } from "./escape.js";
import type { HistoryEvent } from "./hold-page.js";

/** The most events one audit page shows. */
export const AUDIT_PAGE_SIZE = 200;

/** The audit page's search. */
export interface AuditSearch {
  readonly tool: string;
  readonly review: string;
  readonly type: string;
}

/** The event types the search offers. */
export const AUDIT_TYPES = ["tessera.decision.v1", "tessera.review.v1", "tessera.forward.v1"] as const;

/** Whether an event matches the search (every given field, exactly). */
export function matchesSearch(e: HistoryEvent, s: AuditSearch): boolean {
  if (s.type !== "" && e.type !== s.type) return false;
  if (s.tool !== "" && e.payload.tool !== s.tool) return false;
  if (s.review !== "" && e.payload.review_id !== s.review) return false;
  return true;
}

const cellText = (v: unknown): string => (v === undefined || v === null ? "" : printable(String(v)));

/** The audit page's body: the search form and the newest matching events. */
export function auditBody(s: AuditSearch, events: readonly HistoryEvent[], total: number): Html {
  return html`<h1>Audit trail</h1>
<form class="filters" method="get" action="/audit" role="search" aria-label="Search the audit trail">
  <div><label for="a-tool">Tool</label><input type="text" id="a-tool" name="tool" value="${s.tool}" autocomplete="off"></div>
  <div><label for="a-review">Review id</label><input type="text" id="a-review" name="review" value="${s.review}" placeholder="rv_…" autocomplete="off"></div>
  <div><label for="a-type">Event</label><select id="a-type" name="type">
    <option value=""${s.type === "" ? html` selected` : ""}>every event</option>
    ${AUDIT_TYPES.map((t) => html`<option value="${t}"${s.type === t ? html` selected` : ""}>${t}</option>`)}
  </select></div>
  <div><button type="submit">Search</button></div>
</form>
<p role="status">${total === 0 ? "No matching events." : `${total} matching event${total === 1 ? "" : "s"}${total > events.length ? `, the newest ${events.length} shown` : ""}.`}</p>
${
  events.length === 0
    ? ""
    : html`<table>
<thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Tool</th><th scope="col">What</th><th scope="col">Review</th><th scope="col">Reviewer</th><th scope="col">Codes</th></tr></thead>
<tbody>${events.map((e) => {
        const p = e.payload;
        const review = typeof p.review_id === "string" ? p.review_id : "";
        return html`<tr>
  <td><time datetime="${e.at}">${e.at}</time></td>
  <td class="mono">${e.type}</td>
  <td class="mono">${cellText(p.tool)}</td>
  <td>${cellText(p.action ?? p.decision ?? p.outcome)}</td>
  <td class="mono">${review === "" ? "" : html`<a href="/reviews/${encodeURIComponent(review)}">${printable(review)}</a>`}</td>
  <td>${cellText(p.reviewer)}</td>
  <td class="mono">${Array.isArray(p.codes) ? printable(p.codes.join(", ")) : ""}</td>
</tr>`;
      })}</tbody>
</table>`
}`;
}
