/**
 * The small pages: sign in, a decision that lost to another reviewer's (409), and an error.
 * @module
 */
import { printable } from "../../platform/printable.js";
import type { ReviewRecord } from "../types.js";
import { type Html, html } from "./escape.js";
import { iso } from "./words.js";

/** The login page: the one page served without a token; `problem` says why the last try failed. */
export function loginBody(problem: string | null): Html {
  return html`<h1>Sign in to review</h1>
${problem === null ? "" : html`<p class="notice bad" role="alert">${problem}</p>`}
<form method="post" action="/login">
  <label for="token">Reviewer token</label>
  <input type="password" id="token" name="token" required autocomplete="current-password" aria-describedby="token-hint">
  <p class="hint" id="token-hint">The token in <code>TESSERA_REVIEW_TOKEN</code>, or yours from the reviewers file. It is exchanged once for a session cookie.</p>
  <button type="submit" class="primary">Sign in</button>
</form>`;
}

/** The page of a 401 on any other route. */
export function unauthorizedBody(): Html {
  return html`<h1>Sign in first</h1>
<p>This page needs a reviewer token. <a href="/login">Sign in</a>.</p>`;
}

/** Someone else decided first (or the hold expired): nothing was changed, and this says who and when. */
export function conflictBody(r: ReviewRecord | null, id: string, tried: "approve" | "deny"): Html {
  const back = html`<p><a href="/reviews/${encodeURIComponent(id)}">See the review</a> · <a href="/">Back to the queue</a></p>`;
  if (r === null) return html`<h1>No such review</h1><p>There is no review <code>${printable(id)}</code>.</p>${back}`;
  const who =
    r.state === "expired"
      ? html`It expired at ${iso(r.expires_at)} before anyone decided it${r.decided_by === null ? "" : html` (approved by <strong>${printable(r.decided_by)}</strong> at ${iso(r.decided_at)}, not used in time)`}.`
      : r.decided_at === null
        ? html`It is ${r.state}.`
        : html`It was already <strong>${r.state}</strong> by <strong>${printable(r.decided_by ?? "?")}</strong> at <time datetime="${iso(r.decided_at)}">${iso(r.decided_at)}</time>${r.decision_reason === null ? "" : html` (reason: ${printable(r.decision_reason)})`}.`;
  return html`<h1>Already decided</h1>
<p class="notice bad" role="alert">Your ${tried === "approve" ? "approval" : "denial"} of <code>${r.id}</code> was not recorded. ${who}</p>
${back}`;
}

/** An error page: a status line and what went wrong. */
export function errorBody(title: string, message: string, back: string): Html {
  return html`<h1>${title}</h1>
<p class="notice bad" role="alert">${printable(message)}</p>
<p><a href="${back}">Go back</a></p>`;
}
