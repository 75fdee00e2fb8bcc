/**
 * A hold's page: the exact call, the trusted context's key names, every check as the gateway
 * grounded it (Source, status, attempts, each condition with its expected and actual values), whether
 * verification was unavailable rather than a mismatch, the digests the decision is bound to, the
 * forms that decide it, and its history in the audit log.
 * @module
 */
import { printable } from "../../platform/printable.js";
import { HOLD_KIND_TEXT, type HoldReason, type ReviewRecord } from "../types.js";
import { type Html, html } from "./escape.js";
import type { Principal } from "./sessions.js";
import { iso, left } from "./words.js";

/** One audit event as the page shows it. */
export interface HistoryEvent {
  readonly at: string;
  readonly type: string;
  readonly payload: Readonly<Record<string, unknown>>;
}

/** JSON pretty-printed for a person: two-space indent, unsafe characters escaped, lines kept. */
export function prettyJson(value: unknown): string {
  return printable(JSON.stringify(value, null, 2) ?? "null", true);
}

const shown = (v: unknown): string => (v === undefined ? "—" : printable(JSON.stringify(v) ?? String(v)));

/** The condition's own keys (column, operator, what it compares against), without the result keys. */
function conditionText(c: Readonly<Record<string, unknown>>): string {
  const { ok: _ok, code: _code, expected: _e, actual: _a, ...rest } = c;
  return printable(
    Object.entries(rest)
      .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
      .join(", "),
  );
}

type Check = Readonly<Record<string, unknown>> & {
  readonly argument?: string;
  readonly check?: number;
  readonly source?: string | null;
  readonly status?: string;
  readonly outcome?: string;
  readonly attempts?: number;
  readonly rows?: number | null;
  readonly conditions?: readonly Readonly<Record<string, unknown>>[];
  readonly error?: { readonly code?: string; readonly message?: string };
};

function checkSection(c: Check): Html {
  const unavailable = c.status === "error";
  const conditions = c.conditions ?? [];
  return html`<section class="check" aria-labelledby="check-${c.argument}-${c.check}">
<h3 id="check-${c.argument}-${c.check}">${printable(String(c.argument))} — check ${String(c.check)}</h3>
<dl class="facts">
  <dt>Source</dt><dd class="mono">${printable(String(c.source ?? "—"))}</dd>
  <dt>Status</dt><dd><span class="${c.status === "matched" ? "ok" : "fail"}">${String(c.status)}</span> → ${String(c.outcome)}</dd>
  <dt>Attempts</dt><dd>${String(c.attempts ?? "—")}</dd>
  <dt>Rows</dt><dd>${c.rows === null || c.rows === undefined ? "no answer" : String(c.rows)}</dd>
  ${"value" in c ? html`<dt>Grounded value</dt><dd class="mono">${shown(c.value)}</dd>` : ""}
</dl>
${
  unavailable
    ? html`<p class="notice bad"><strong>Verification was unavailable</strong>, not a mismatch: the source could not be checked${c.error?.code ? html` (<code>${c.error.code}</code>)` : ""}.${c.error?.message ? html` ${printable(c.error.message)}` : ""}</p>`
    : ""
}
${
  conditions.length === 0
    ? ""
    : html`<table>
<thead><tr><th scope="col">Condition</th><th scope="col">Expected</th><th scope="col">Actual</th><th scope="col">Result</th></tr></thead>
<tbody>${conditions.map(
        (cond) => html`<tr>
  <td class="mono">${conditionText(cond)}</td>
  <td class="mono">${shown(cond.expected)}</td>
  <td class="mono">${shown(cond.actual)}</td>
  <td>${cond.ok === true ? html`<span class="ok">ok</span>` : html`<span class="fail">${String(cond.code ?? "failed")}</span>`}</td>
</tr>`,
      )}</tbody>
</table>`
}
</section>`;
}

/** Checks as stored before holds kept their explanation: the codes only. */
function reasonsTable(reasons: readonly HoldReason[]): Html {
  return html`<p class="notice">This call was held before the queue kept each check's values: only its codes are known.</p>
<table>
<thead><tr><th scope="col">Argument</th><th scope="col">Check</th><th scope="col">Source</th><th scope="col">Status</th><th scope="col">Why</th><th scope="col">Codes</th></tr></thead>
<tbody>${reasons.map(
    (x) =>
      html`<tr><td class="mono">${printable(x.argument)}</td><td>${x.check}</td><td class="mono">${printable(x.source ?? "")}</td><td>${x.status}</td><td>${x.kind}</td><td>${printable(x.codes.join(", ") + (x.message ? ` — ${x.message}` : ""))}</td></tr>`,
  )}</tbody>
</table>`;
}

function decideForms(r: ReviewRecord, p: Principal): Html {
  const id = encodeURIComponent(r.id);
  return html`<h2 id="decide">Decide</h2>
<div class="decide">
<form method="post" action="/reviews/${id}/approve" aria-labelledby="approve-title">
  <h3 id="approve-title">Approve</h3>
  <p class="hint">Lets exactly this call (same tool, arguments, policy and session) through once.</p>
  <input type="hidden" name="csrf" value="${p.csrf}">
  <label for="ttl">Approval valid for</label>
  <input type="text" id="ttl" name="ttl" placeholder="${`default ${Math.round(r.approval_ttl_ms / 60_000)}m`}" aria-describedby="ttl-hint" autocomplete="off">
  <p class="hint" id="ttl-hint">Optional, such as 15m, 2h or 1d; blank keeps the gateway's setting.</p>
  <button type="submit" class="primary">Approve this call</button>
</form>
<form method="post" action="/reviews/${id}/deny" aria-labelledby="deny-title">
  <h3 id="deny-title">Deny</h3>
  <p class="hint">The call is not forwarded; the agent is shown your reason.</p>
  <input type="hidden" name="csrf" value="${p.csrf}">
  <label for="reason">Reason for the agent</label>
  <input type="text" class="wide" id="reason" name="reason" maxlength="500" aria-describedby="reason-hint" autocomplete="off">
  <p class="hint" id="reason-hint">Optional; one line, at most 500 characters.</p>
  <button type="submit" class="danger">Deny this call</button>
</form>
</div>`;
}

function decisionFacts(r: ReviewRecord, now: number): Html {
  return html`<dl class="facts">
  <dt>State</dt><dd><span class="state state-${r.state}">${r.state}</span></dd>
  <dt>Held at</dt><dd><time datetime="${iso(r.created_at)}">${iso(r.created_at)}</time></dd>
  ${
    r.expires_at === null
      ? ""
      : html`<dt>${r.decided_at === null ? "Review by" : "Approval usable until"}</dt><dd><time datetime="${iso(r.expires_at)}">${iso(r.expires_at)}</time> (${left(r.expires_at, now)})</dd>`
  }
  ${r.decided_at === null ? "" : html`<dt>Decided</dt><dd>${iso(r.decided_at)} by <strong>${printable(r.decided_by ?? "?")}</strong></dd>`}
  ${r.decision_reason === null ? "" : html`<dt>Reason given</dt><dd>${printable(r.decision_reason)}</dd>`}
  ${r.consumed_at === null ? "" : html`<dt>Forwarded</dt><dd>${iso(r.consumed_at)}</dd>`}
</dl>`;
}

function historyTable(events: readonly HistoryEvent[]): Html {
  if (events.length === 0) return html`<p>No events.</p>`;
  return html`<table>
<thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">What</th><th scope="col">Who</th></tr></thead>
<tbody>${events.map((e) => {
    const what = String(e.payload.action ?? e.payload.decision ?? e.payload.outcome ?? "");
    return html`<tr><td><time datetime="${e.at}">${e.at}</time></td><td class="mono">${e.type}</td><td>${printable(what)}</td><td>${printable(String(e.payload.reviewer ?? ""))}</td></tr>`;
  })}</tbody>
</table>`;
}

/** The body of a hold's page. */
export function holdBody(r: ReviewRecord, history: readonly HistoryEvent[], p: Principal, now: number): Html {
  const kinds = [...new Set(r.reasons.map((x) => x.kind))];
  const checks = (r.explained?.checks ?? []) as readonly Check[];
  const held = checks.filter((c) => c.outcome !== "allow");
  const passed = checks.filter((c) => c.outcome === "allow");
  return html`<p><a href="/">← Back to the queue</a></p>
<h1>Review <span class="mono">${r.id}</span>: <span class="mono">${printable(r.tool)}</span></h1>
${decisionFacts(r, now)}
${kinds.map(
  (k) =>
    html`<p class="notice${k === "verification_unavailable" ? " bad" : ""}"><strong>${k === "verification_unavailable" ? "Verification unavailable" : "Needs judgment"}:</strong> ${HOLD_KIND_TEXT[k]}.</p>`,
)}
${r.state === "pending" ? decideForms(r, p) : ""}
<h2>The call</h2>
<dl class="facts"><dt>Tool</dt><dd class="mono">${printable(r.tool)}</dd></dl>
<pre aria-label="Arguments" id="arguments">${prettyJson(r.arguments)}</pre>
<h2>Trusted context</h2>
${
  r.explained === null || r.explained.context_keys === null
    ? html`<p>Not recorded for this hold.</p>`
    : r.explained.context_keys.length === 0
      ? html`<p>The call was grounded with no trusted context.</p>`
      : html`<p>Grounded with the host's values (not shown) of: ${r.explained.context_keys.map(
          (k, i) => html`${i > 0 ? ", " : ""}<code>${printable(k)}</code>`,
        )}.</p>`
}
<h2>Checks that held the call</h2>
${r.explained === null ? reasonsTable(r.reasons) : held.map(checkSection)}
${passed.length === 0 ? "" : html`<h2>Checks that passed</h2>${passed.map(checkSection)}`}
<h2>Bound to</h2>
<dl class="facts">
  <dt>Policy digest</dt><dd class="mono">${r.policy_digest}</dd>
  <dt>Effective policy</dt><dd class="mono">${r.effective_digest === "" ? "(none)" : r.effective_digest}</dd>
  <dt>Arguments digest</dt><dd class="mono">${r.arguments_digest}</dd>
  <dt>Context digest</dt><dd class="mono">${r.context_digest}</dd>
</dl>
<h2>History</h2>
${historyTable(history)}`;
}
