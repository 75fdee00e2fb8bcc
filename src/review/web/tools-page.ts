/**
 * Tool-definition changes: every pin, and for a changed one the pinned and the new description and
 * input schema side by side as a diff, with the form that approves exactly the new definition shown
 * (its full digest in a hidden field; a definition that changed again since is refused).
 * @module
 */
import { printable } from "../../platform/printable.js";
import type { DiffLine, ToolDefinitionDiff } from "../tool-diff.js";
import type { ToolPin } from "../types.js";
import { type Html, html } from "./escape.js";
import type { Principal } from "./sessions.js";
import { iso } from "./words.js";

/** The list of pins. */
export function toolsBody(pins: readonly ToolPin[]): Html {
  const changed = pins.filter((p) => p.pending_digest !== null);
  return html`<h1>Tool changes</h1>
<p>${changed.length === 0 ? "No tool definition has changed: every call is checked against its pinned definition." : `${changed.length} tool definition${changed.length === 1 ? " has" : "s have"} changed; calls to ${changed.length === 1 ? "it are" : "them are"} blocked until a reviewer approves the new definition.`}</p>
${
  pins.length === 0
    ? html`<p>No pinned tools.</p>`
    : html`<table>
<thead><tr><th scope="col">Tool</th><th scope="col">State</th><th scope="col">Pinned digest</th><th scope="col">Changed</th></tr></thead>
<tbody>${pins.map(
        (p) => html`<tr>
  <td class="mono">${p.pending_digest === null ? printable(p.tool) : html`<a href="/tools/${encodeURIComponent(p.tool)}">${printable(p.tool)}</a>`}</td>
  <td>${p.pending_digest === null ? html`<span class="ok">pinned</span>` : html`<span class="fail">changed — blocked</span>`}</td>
  <td class="mono">${p.digest}</td>
  <td>${p.changed_at === null ? "—" : html`<time datetime="${iso(p.changed_at)}">${iso(p.changed_at)}</time>`}</td>
</tr>`,
      )}</tbody>
</table>`
}`;
}

/** Rows of a side-by-side diff: unchanged lines on both sides, runs of removed and added lines paired. */
export function sideBySide(lines: readonly DiffLine[]): { left: DiffLine | null; right: DiffLine | null }[] {
  const rows: { left: DiffLine | null; right: DiffLine | null }[] = [];
  let i = 0;
  while (i < lines.length) {
    const l = lines[i]!;
    if (l.op === "same") {
      rows.push({ left: l, right: l });
      i++;
      continue;
    }
    const removed: DiffLine[] = [];
    const added: DiffLine[] = [];
    while (i < lines.length && lines[i]!.op !== "same") {
      (lines[i]!.op === "removed" ? removed : added).push(lines[i]!);
      i++;
    }
    for (let k = 0; k < Math.max(removed.length, added.length); k++)
      rows.push({ left: removed[k] ?? null, right: added[k] ?? null });
  }
  return rows;
}

function cell(l: DiffLine | null, side: "old" | "new"): Html {
  if (l === null) return html`<td class="empty"></td>`;
  const mark = l.op === "removed" ? "−" : l.op === "added" ? "+" : " ";
  const label = l.op === "removed" ? "removed: " : l.op === "added" ? "added: " : "";
  return html`<td class="${l.op === "same" ? "" : l.op}" data-side="${side}"><span class="mark" aria-hidden="true">${mark} </span>${label === "" ? "" : html`<span class="sr">${label}</span>`}${printable(l.text)}</td>`;
}

function diffTable(title: string, lines: readonly DiffLine[]): Html {
  if (lines.length === 0) return html``;
  const changes = lines.filter((l) => l.op !== "same").length;
  return html`<h2>${title}${changes === 0 ? " (unchanged)" : ""}</h2>
<table class="diff">
<thead><tr><th scope="col">Pinned (approved)</th><th scope="col">New (offered by the upstream now)</th></tr></thead>
<tbody>${sideBySide(lines).map((r) => html`<tr>${cell(r.left, "old")}${cell(r.right, "new")}</tr>`)}</tbody>
</table>`;
}

/** A changed tool's page: the diff and the approve form. */
export function toolDiffBody(pin: ToolPin, diff: ToolDefinitionDiff, p: Principal): Html {
  return html`<p><a href="/tools">← Back to tool changes</a></p>
<h1>Changed definition: <span class="mono">${printable(pin.tool)}</span></h1>
<p class="notice bad">Calls to this tool are blocked until the new definition is approved. Read what changed: a new description is text the agent follows.</p>
<dl class="facts">
  <dt>Pinned digest</dt><dd class="mono">${pin.digest}</dd>
  <dt>New digest</dt><dd class="mono">${pin.pending_digest ?? ""}</dd>
  <dt>Changed at</dt><dd>${iso(pin.changed_at)}</dd>
</dl>
${diffTable("Description", diff.description)}
${diffTable("Input schema", diff.inputSchema)}
${diffTable("Other keys", diff.other)}
<h2>Decide</h2>
<div class="decide">
<form method="post" action="/tools/${encodeURIComponent(pin.tool)}/approve">
  <input type="hidden" name="csrf" value="${p.csrf}">
  <input type="hidden" name="digest" value="${pin.pending_digest ?? ""}">
  <p class="hint">Approves exactly the new definition shown here; if the upstream changed it again since this page was loaded, nothing is approved.</p>
  <button type="submit" class="primary">Approve the new definition</button>
</form>
<div>
  <p class="hint">Keeping it blocked needs nothing: calls stay blocked until someone approves.</p>
  <p><a href="/tools">Keep blocked and go back</a></p>
</div>
</div>`;
}
