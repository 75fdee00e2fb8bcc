/**
 * Change summary (specs/json-shapes.md, `route: summary`): the change's own record, each diff hunk (file,
 * hunk header, changed lines), and every ticket the change names — a shared-fragment claim that the
 * ticket id appears in both, then the ticket's headline.
 * @module
 */
import { containsNormalized, type EvidenceRecord, normalize } from "../core/index.js";
import type { Workspace } from "../evidence/index.js";
import { answered, type DraftClaim, headline, refused, sharedFragment } from "./claims.js";
import { ticketKey } from "./rca.js";
import type { GroundedResult } from "./types.js";

/** At most this many `code_change` claims per change (hunks in diff order). */
export const MAX_HUNK_CLAIMS = 50;
/** A `code_change` claim quotes the hunk's first line and at most this many changed lines. */
export const MAX_HUNK_LINES = 40;

/** Answer `summary` for a named pull request or commit. */
export function summarizeChange(
  ws: Workspace,
  question: string,
  change: { kind: "pr" | "commit"; id: string },
): GroundedResult {
  const name = change.kind === "pr" ? `PR ${change.id}` : `commit ${change.id}`;
  const rec = change.kind === "pr" ? ws.getPr(change.id) : ws.getCommit(change.id);
  if (rec === undefined) return refused(question, "summary", `${name} is unknown`, `${name} is not in the workspace`);
  const owner = change.kind === "pr" ? change.id : rec.id.slice("commit:".length);
  // a commit's own record takes the `pull_request` role: it is the change's record (adr/0017)
  const claims: DraftClaim[] = [{ role: "pull_request", text: headline(rec), support: [rec] }];
  for (const h of ws.hunks(owner).slice(0, MAX_HUNK_CLAIMS)) {
    const lines = h.text.split("\n");
    const text = lines
      .slice(0, MAX_HUNK_LINES + 1)
      .join("\n")
      .trim();
    claims.push({ role: "code_change", text, support: [h] });
  }
  const norm = normalize(rec.text);
  for (const ticket of ws.listTickets()) {
    const key = ticketKey(ticket);
    if (!containsNormalized(normalize(key), norm)) continue;
    const pair: EvidenceRecord[] = [rec, ticket];
    claims.push({ role: "motivating_ticket", text: sharedFragment("Motivating ticket", key, pair), support: pair });
    claims.push({ role: "ticket", text: headline(ticket), support: [ticket] });
  }
  return answered(question, "summary", `${name} named`, claims);
}
