/**
 * The approver's check: re-verify a proposal someone hands you against the evidence as it is now,
 * and check claims the same way. Nothing here trusts a `verified` flag it was given.
 * @module
 */
import type { GroundedResult } from "../answers/types.js";
import { type Claim, type EvidenceRecord, isSupported, type SupportReason, verifyField } from "../core/index.js";
import { draftAction } from "./draft.js";
import type { ActionField, ActionKind, ActionProposal } from "./types.js";

/** Why a proposal field did not verify. */
export type FieldProblemCode =
  | "no_support"
  | "duplicate_support"
  | "unknown_record"
  | "empty_value"
  | "claim_unsupported"
  | "differs_from_workspace"
  | "not_in_workspace_draft";

/** One reason a field failed, with a one-line message. */
export interface FieldProblem {
  readonly code: FieldProblemCode;
  readonly message: string;
}

/** The re-verification of one field: `verified` iff there are no problems. */
export interface FieldCheck {
  readonly name: string;
  readonly role: string;
  readonly verified: boolean;
  readonly support: readonly string[];
  readonly problems: readonly FieldProblem[];
}

/** The check of one part of a proposal besides its fields (`domain`, `route.reason`, `all_grounded`, …). */
export interface PartCheck {
  readonly name: string;
  readonly verified: boolean;
  readonly problems: readonly FieldProblem[];
}

/**
 * The result of `verifyProposal`. `all_verified` needs at least one field, a comparison with a fresh
 * draft from the workspace, every part and field verified, and no field of that draft left out
 * (unless `allow_partial`). Keys in this order.
 */
export interface ProposalCheck {
  readonly kind: ActionKind;
  readonly question: string;
  readonly all_verified: boolean;
  /** Whether the proposal was compared with a fresh draft of its question from the workspace. */
  readonly compared_with_workspace: boolean;
  /** Whether fields the workspace draft has may be left out (`--allow-partial`). */
  readonly allow_partial: boolean;
  /** Every part an approver reads besides the fields, against the fresh draft (empty without one). */
  readonly parts: readonly PartCheck[];
  readonly fields: readonly FieldCheck[];
  /** Names of the parts and fields that did not verify, parts first, fields in proposal order. */
  readonly failing: readonly string[];
  /** Fields the workspace draft has that the proposal left out: failing unless `allow_partial`. */
  readonly omitted: readonly string[];
}

/** Options of `verifyProposal`. */
export interface VerifyProposalOptions {
  /** A fresh grounding of the proposal's question from the same workspace, to draft and compare with. */
  readonly grounding?: GroundedResult;
  /** Accept a proposal that leaves out fields the workspace draft has (they are still reported). */
  readonly allowPartial?: boolean;
}

const SUPPORT_MESSAGES: Readonly<Record<SupportReason, string>> = {
  contained_in_record: "supported",
  fragment_in_every_record: "supported",
  no_support: "the field cites no record",
  empty_claim: "the value is empty",
  not_contained: "the value is not contained in any single cited record",
  unknown_label: "the shared-fragment label is not one of the claim grammar's labels",
  too_few_citations: "a shared-fragment value needs at least two cited records",
  citation_mismatch: "the record ids the value names differ from the records it cites",
  fragment_missing: "the shared fragment is missing from a cited record",
};

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** Problems of one field against the current records of its support ids. */
function recordProblems(field: ActionField, lookup: (id: string) => EvidenceRecord | undefined): FieldProblem[] {
  if (field.support.length === 0) return [{ code: "no_support", message: "the field cites no record" }];
  // one record cited twice would pass as the two records a shared fragment needs (a forged recurrence)
  const twice = field.support.filter((id, i) => field.support.indexOf(id) !== i);
  if (twice.length > 0) {
    return [
      {
        code: "duplicate_support",
        message: `the field cites ${[...new Set(twice)].map((id) => `\`${id}\``).join(", ")} more than once`,
      },
    ];
  }
  const records: EvidenceRecord[] = [];
  const missing: string[] = [];
  for (const id of field.support) {
    const r = lookup(id);
    if (r === undefined) missing.push(id);
    else records.push(r);
  }
  if (missing.length > 0) {
    return [
      { code: "unknown_record", message: `no record ${missing.map((id) => `\`${id}\``).join(", ")} in the workspace` },
    ];
  }
  // the field stands as its own claim: supported means the value is in one single cited record (or,
  // for a shared-fragment value, its fragment is in every record it names)
  const claim: Claim = { text: field.value, support: records };
  const result = verifyField(field.value, claim);
  if (result.verified) return [];
  if (result.reason === "empty_value") return [{ code: "empty_value", message: "the value is empty" }];
  const support = isSupported(claim);
  const where = support.record !== undefined ? ` (\`${support.record}\`)` : "";
  return [{ code: "claim_unsupported", message: `${SUPPORT_MESSAGES[support.reason]}${where}` }];
}

/** Problems of one field against the same field of a fresh draft. */
function draftProblems(field: ActionField, fresh: ActionProposal, freshField: ActionField | undefined): FieldProblem[] {
  if (freshField === undefined) {
    const why = fresh.refused
      ? `the workspace draft is refused: ${fresh.refusal ?? "no reason given"}`
      : `the workspace draft has no field \`${field.name}\``;
    return [{ code: "not_in_workspace_draft", message: why }];
  }
  const diffs: string[] = [];
  if (field.role !== freshField.role) diffs.push(`role \`${freshField.role}\``);
  // the flag an approver reads must be the workspace's verdict, whichever way it was changed
  if (field.verified !== freshField.verified) diffs.push(`\`verified\` flag (\`${freshField.verified}\`)`);
  if (field.value !== freshField.value) diffs.push("value");
  if (!sameList(field.support, freshField.support))
    diffs.push(`support ${freshField.support.map((s) => `\`${s}\``).join(", ")}`);
  if (!freshField.verified) diffs.push("verification (the workspace field does not verify)");
  if (diffs.length === 0) return [];
  return [{ code: "differs_from_workspace", message: `the workspace grounds a different ${diffs.join(", ")}` }];
}

// every part of a proposal besides its fields, as the approver reads it; `kind` and `question` are
// what the fresh draft is made from, and `requires_approval` / `executed` are fixed by the schema
const PARTS: readonly [string, (p: ActionProposal) => unknown][] = [
  ["domain", (p) => p.domain],
  ["route.kind", (p) => p.route.kind],
  ["route.reason", (p) => p.route.reason],
  ["grounded", (p) => p.grounded],
  ["refused", (p) => p.refused],
  ["refusal", (p) => p.refusal],
  ["all_grounded", (p) => p.all_grounded],
  ["requires_approval", (p) => p.requires_approval],
  ["executed", (p) => p.executed],
];

function partChecks(proposal: ActionProposal, fresh: ActionProposal): PartCheck[] {
  return PARTS.map(([name, get]) => {
    const mine = get(proposal);
    const theirs = get(fresh);
    if (mine === theirs) return { name, verified: true, problems: [] };
    const message = `the proposal says \`${JSON.stringify(mine)}\`, the workspace draft says \`${JSON.stringify(theirs)}\``;
    return { name, verified: false, problems: [{ code: "differs_from_workspace", message }] };
  });
}

/**
 * Re-verify every field of `proposal` against the current records of its support ids (each id must
 * exist; the value must be supported by its own cited records, with no splicing across records),
 * and, given a fresh grounding of the same question, every part and field against what the
 * workspace drafts now, with no field of that draft left out unless `allowPartial`. Without a
 * grounding the record checks still run, but the proposal is not `all_verified`.
 */
export function verifyProposal(
  proposal: ActionProposal,
  lookup: (id: string) => EvidenceRecord | undefined,
  options: VerifyProposalOptions = {},
): ProposalCheck {
  const fresh = options.grounding === undefined ? undefined : draftAction(proposal.kind, options.grounding);
  const freshByName = new Map((fresh?.fields ?? []).map((f) => [f.name, f] as const));
  const parts = fresh === undefined ? [] : partChecks(proposal, fresh);
  const fields = proposal.fields.map((field): FieldCheck => {
    const problems = recordProblems(field, lookup);
    if (fresh !== undefined) problems.push(...draftProblems(field, fresh, freshByName.get(field.name)));
    return {
      name: field.name,
      role: field.role,
      verified: problems.length === 0,
      support: [...field.support],
      problems,
    };
  });
  const names = new Set(proposal.fields.map((f) => f.name));
  const omitted = (fresh?.fields ?? []).filter((f) => !names.has(f.name)).map((f) => f.name);
  const allowPartial = options.allowPartial === true;
  const failing = [...parts, ...fields].filter((f) => !f.verified).map((f) => f.name);
  return {
    kind: proposal.kind,
    question: proposal.question,
    all_verified:
      fresh !== undefined && fields.length > 0 && failing.length === 0 && (allowPartial || omitted.length === 0),
    compared_with_workspace: fresh !== undefined,
    allow_partial: allowPartial,
    parts,
    fields,
    failing,
    omitted,
  };
}

/** The verdict on one claim of `verifyClaims`. Keys in this order. */
export interface ClaimCheck {
  readonly text: string;
  readonly supported: boolean;
  readonly shape: string;
  readonly reason: SupportReason;
  /** The record that holds a snippet claim, or null. */
  readonly record: string | null;
}

/** The result of `verifyClaims`. */
export interface ClaimsCheck {
  readonly all_supported: boolean;
  readonly claims: readonly ClaimCheck[];
}

/** `isSupported` over each claim; `all_supported` needs at least one claim. */
export function verifyClaims(claims: readonly Claim[]): ClaimsCheck {
  const checks = claims.map((c): ClaimCheck => {
    const r = isSupported(c);
    return { text: c.text, supported: r.supported, shape: r.shape, reason: r.reason, record: r.record ?? null };
  });
  return { all_supported: checks.length > 0 && checks.every((c) => c.supported), claims: checks };
}
