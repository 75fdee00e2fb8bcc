/**
 * Root-cause analysis of a failed CI run (specs/json-shapes.md, `route: rca`): the run, its error-bearing
 * log lines, the failure signature, earlier runs with the same signature, tickets quoting it and
 * the changes that reference those tickets. Every claim is verbatim from one record or a
 * shared-fragment claim over the records it names.
 * @module
 */
import { type EvidenceRecord, normalize } from "../core/index.js";
import { FAILED_CONCLUSIONS, type RunSignature, type Workspace } from "../evidence/index.js";
import { answered, type DraftClaim, headline, refused, sharedFragment } from "./claims.js";
import type { GroundedResult, SignatureScore } from "./types.js";

/** At most this many `log` claims (the first error-bearing lines, in log order). */
export const MAX_LOG_CLAIMS = 20;
/** At most this many alternative signature lines are offered (the next-ranked candidates, adr/0075). */
export const MAX_ALTERNATIVES = 2;
/** At most this many earlier runs are cited for a recurring failure (the most recent ones). */
export const MAX_PRIOR_RUNS = 3;

/** Tickets whose text quotes `fragment` (token-bounded), by id. */
export function ticketsQuoting(ws: Workspace, fragment: string): EvidenceRecord[] {
  return ws.search("ticket", fragment);
}

/** The ticket's own id (`ticket:OPS-7` → `OPS-7`). */
export const ticketKey = (t: EvidenceRecord): string => t.id.slice("ticket:".length);

/** Pull requests, then commits, whose text names the ticket id (token-bounded). */
export function changesReferencing(ws: Workspace, ticket: EvidenceRecord): EvidenceRecord[] {
  return [...ws.search("pr", ticketKey(ticket)), ...ws.search("commit", ticketKey(ticket))];
}

/** Answer `rca` for a named run. */
export function rootCause(ws: Workspace, question: string, runId: string): GroundedResult {
  const run = ws.getRun(runId);
  const runRecord = ws.getRecord(`run:${runId}`);
  if (run === undefined || runRecord === undefined) {
    return refused(question, "rca", `run ${runId} is unknown`, `run ${runId} is not in the workspace`);
  }
  if (!FAILED_CONCLUSIONS.includes(run.conclusion)) {
    const state = run.conclusion || run.status || "unknown";
    return refused(
      question,
      "rca",
      `run ${runId} did not fail`,
      `run ${runId} did not fail (conclusion: ${state}); there is no failure to analyse`,
    );
  }
  const claims: DraftClaim[] = [{ role: "run", text: headline(runRecord), support: [runRecord] }];
  let logs = 0;
  for (const l of ws.logLines(runId)) {
    if (l.tier === null || logs >= MAX_LOG_CLAIMS) continue;
    const text = l.record.text.trim();
    if (normalize(text) === "") continue;
    claims.push({ role: "log", text, support: [l.record] });
    logs++;
  }
  const sig = ws.signature(runId);
  const sigText = sig?.record.text.trim() ?? "";
  let score: SignatureScore | undefined;
  if (sig !== undefined && normalize(sigText) !== "") {
    claims.push({ role: "failure_signature", text: sigText, support: [sig.record] });
    score = signatureScore(sig);
    // the next-ranked candidates, each its own verbatim line, so an approver can pick a better title
    let alternatives = 0;
    for (const r of sig.ranked) {
      if (alternatives >= MAX_ALTERNATIVES) break;
      const text = r.record.text.trim();
      if (r.record.id === sig.record.id || text === sigText || normalize(text) === "") continue;
      claims.push({ role: "alternative_signature", text, support: [r.record] });
      alternatives++;
    }
    const earlier = ws.findInEarlierLogs(sigText, runId, MAX_PRIOR_RUNS).reverse();
    if (earlier.length > 0) {
      const cited = [...earlier, sig.record];
      claims.push({
        role: "prior_occurrence",
        text: sharedFragment("Recurring failure", sigText, cited),
        support: cited,
      });
    }
    const seenChanges = new Set<string>();
    const resolving: DraftClaim[] = [];
    for (const ticket of ticketsQuoting(ws, sigText)) {
      const cited = [sig.record, ticket];
      claims.push({
        role: "documented_incident",
        text: sharedFragment("Documented incident", sigText, cited),
        support: cited,
      });
      for (const change of changesReferencing(ws, ticket)) {
        if (seenChanges.has(change.id)) continue;
        seenChanges.add(change.id);
        const pair = [ticket, change];
        resolving.push({
          role: "resolving_change",
          text: sharedFragment("Resolving change", ticketKey(ticket), pair),
          support: pair,
        });
      }
    }
    claims.push(...resolving);
  }
  return answered(question, "rca", `run ${runId} failed`, claims, score);
}

/** The rule, score and reasons of the signature line (`ranked[0]` is the signature itself). */
function signatureScore(sig: RunSignature): SignatureScore {
  const top = sig.ranked.find((r) => r.record.id === sig.record.id);
  return {
    id: sig.record.id,
    rule: top?.rule ?? "",
    score: top?.score ?? 0,
    basis: sig.basis,
    reasons: (top?.reasons ?? []).map((x) => ({ reason: x.reason, points: x.points })),
  };
}

/** One ranked signature candidate as `ground --explain` shows it: the cited line, its rule, score and reasons. */
export interface SignatureCandidate {
  readonly id: string;
  readonly text: string;
  readonly rule: string;
  readonly score: number;
  readonly reasons: readonly { readonly reason: string; readonly points: number }[];
}

/** The ranked signature candidates of a run (the signature first), or none when it has no signature. */
export function signatureCandidates(ws: Workspace, runId: string): SignatureCandidate[] {
  const sig = ws.signature(runId);
  if (sig === undefined) return [];
  return sig.ranked.map((r) => ({
    id: r.record.id,
    text: r.record.text.trim(),
    rule: r.rule,
    score: r.score,
    reasons: r.reasons.map((x) => ({ reason: x.reason, points: x.points })),
  }));
}
