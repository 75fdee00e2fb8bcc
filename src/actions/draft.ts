/**
 * The drafter: a `GroundedResult` in, an `ActionProposal` out. It reads only the grounded claims and
 * the evidence they cite, never grounds a second way and never writes prose; every field's
 * `verified` is recomputed here with the core verifier (adr/0021-drafter-boundary.md).
 * @module
 */
import type { GroundedClaim, GroundedResult, SupportRef } from "../answers/types.js";
import { type Claim, contains, type EvidenceRecord, firstContaining, normalize, verifyField } from "../core/index.js";
import { actionSpec } from "./catalog.js";
import type { ActionField, ActionKind, ActionProposal, ActionSpec } from "./types.js";

/** A cited record as the core sees it: the result's rendering of the locator is dropped. */
export function recordOf(ref: SupportRef): EvidenceRecord {
  return {
    id: ref.id,
    source: ref.source,
    locator: { kind: ref.locator.kind, parts: ref.locator.parts },
    text: ref.text,
  };
}

/**
 * Rebuilds claims from their support refs. A record cited by several claims is rebuilt once, so its
 * text is normalized once per draft; refs are shared only when id, source, locator and text agree.
 */
class ClaimBuilder {
  private readonly records = new Map<string, { readonly ref: SupportRef; readonly record: EvidenceRecord }>();

  claim(c: GroundedClaim): Claim {
    return { text: c.text, support: c.support.map((ref) => this.record(ref)) };
  }

  private record(ref: SupportRef): EvidenceRecord {
    const hit = this.records.get(ref.id);
    if (hit !== undefined && sameRef(hit.ref, ref)) return hit.record;
    const record = recordOf(ref);
    if (hit === undefined) this.records.set(ref.id, { ref, record });
    return record;
  }
}

function sameRef(a: SupportRef, b: SupportRef): boolean {
  if (a === b) return true;
  if (a.text !== b.text || a.source !== b.source || a.locator.kind !== b.locator.kind) return false;
  const p = a.locator.parts;
  const q = b.locator.parts;
  return p.length === q.length && p.every(([k, v], i) => q[i]![0] === k && q[i]![1] === v);
}

/** A title lifted verbatim from the source claim's own evidence, with the record it came from. */
interface Lifted {
  readonly value: string;
  readonly record: EvidenceRecord;
}

/**
 * The line of `record` that holds the claim, trimmed: for a log-line record the signature line as
 * written. Falls back to the whole trimmed text when no single line holds the claim.
 */
function liftLine(claimText: string, record: EvidenceRecord): string {
  if (!record.text.includes("\n")) return record.text.trim(); // one line, and it holds the claim
  const line = record.text.split(/\r?\n/).find((l) => contains(claimText, l));
  return (line ?? record.text).trim();
}

// a leading "PR 12:", "PR #12 -", "Pull request 12:", "#12:", "commit 1a2b3c4:" or "Title:" label
const PR_LABEL = /^(?:(?:pr|pull request)\s*#?\s*\d+|#\d+|commit\s+[0-9a-f]{7,64}|title)\s*[:\-–—]\s*/i;

/** The change's own title: the first non-empty line of its record, without the leading label. */
function liftPrTitle(record: EvidenceRecord): string {
  const first = record.text.split(/\r?\n/).find((l) => l.trim() !== "") ?? "";
  return first.trim().replace(PR_LABEL, "").trim();
}

function liftTitle(spec: ActionSpec, source: Claim): Lifted | null {
  if (spec.kind === "incident") {
    const record = firstContaining(normalize(source.text), source.support);
    return record === undefined ? null : { value: liftLine(source.text, record), record };
  }
  const record =
    source.support.find((r) => r.locator.kind === "pr" || r.locator.kind === "commit") ?? source.support[0];
  return record === undefined ? null : { value: liftPrTitle(record), record };
}

/** Field names: the role, numbered `role_1`, `role_2`, … when the role repeats. */
function fieldNames(claims: readonly GroundedClaim[]): string[] {
  const total = new Map<string, number>();
  for (const c of claims) total.set(c.role, (total.get(c.role) ?? 0) + 1);
  const seen = new Map<string, number>();
  return claims.map((c) => {
    if (total.get(c.role) === 1) return c.role;
    const n = (seen.get(c.role) ?? 0) + 1;
    seen.set(c.role, n);
    return `${c.role}_${n}`;
  });
}

function refusal(kind: ActionKind, result: GroundedResult, reason: string): ActionProposal {
  return {
    kind,
    domain: result.domain,
    question: result.question,
    route: { kind: result.route.kind, reason: result.route.reason },
    grounded: false,
    refused: true,
    refusal: reason,
    fields: [],
    all_grounded: false,
    requires_approval: true,
    executed: false,
  };
}

/**
 * Why `spec` cannot be drafted from `result`, or null when it can: a refused or ungrounded
 * result, a route the kind does not draft from, or a domain it does not serve.
 */
function refusalReason(spec: ActionSpec, result: GroundedResult): string | null {
  if (result.refused) return result.refusal ?? "the grounding refused the question";
  if (!result.grounded) {
    const ok = result.claims.filter((c) => c.verified).length;
    return `the question was not grounded (${ok} of ${result.claims.length} claims verified)`;
  }
  if (!spec.routes.includes(result.route.kind)) {
    const routes = spec.routes.map((r) => `\`${r}\``).join(", ");
    return `\`${spec.kind}\` drafts from the ${routes} route, but the question was routed to \`${result.route.kind}\``;
  }
  if (!spec.domains.includes(result.domain)) return `\`${spec.kind}\` does not serve the \`${result.domain}\` domain`;
  return null;
}

/**
 * Draft an action of `kind` from a grounded result. A refused, ungrounded or incompatible result
 * gives a proposal carrying the refusal with no fields; an unknown kind throws `unknown_action`.
 * @example draftAction("incident", await ground("examples/ci-workspace", "why did run 1042 fail?"))
 */
export function draftAction(kind: string, result: GroundedResult): ActionProposal {
  const spec = actionSpec(kind);
  const refused = refusalReason(spec, result);
  if (refused !== null) return refusal(spec.kind, result, refused);

  const source = result.claims.find((c) => c.role === spec.title_from);
  if (source === undefined)
    return refusal(spec.kind, result, `no \`${spec.title_from}\` claim to lift the \`${spec.kind}\` title from`);
  const builder = new ClaimBuilder();
  const sourceClaim = builder.claim(source);
  const lifted = liftTitle(spec, sourceClaim);
  if (lifted === null) return refusal(spec.kind, result, `the \`${spec.title_from}\` claim cites no record holding it`);

  const names = fieldNames(result.claims);
  const fields: ActionField[] = result.claims.map((c, i) => {
    const claim = c === source ? sourceClaim : builder.claim(c);
    return {
      name: names[i]!,
      role: c.role,
      value: c.text,
      verified: verifyField(c.text, claim).verified,
      support: c.support.map((s) => s.id),
    };
  });
  // a title equal to its claim's text is the same verifyField call as that claim's field
  const same = lifted.value === source.text ? fields[result.claims.indexOf(source)] : undefined;
  fields.unshift({
    name: "title",
    role: source.role,
    value: lifted.value,
    verified: same !== undefined ? same.verified : verifyField(lifted.value, sourceClaim).verified,
    support: [lifted.record.id],
  });
  return {
    kind: spec.kind,
    domain: result.domain,
    question: result.question,
    route: { kind: result.route.kind, reason: result.route.reason },
    grounded: true,
    refused: false,
    refusal: null,
    fields,
    all_grounded: fields.every((f) => f.verified),
    requires_approval: true,
    executed: false,
  };
}
