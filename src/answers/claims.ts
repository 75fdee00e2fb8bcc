/**
 * Turning drafted claims into checked `GroundedClaim`s: every claim goes through `isSupported`, and
 * `verified` is exactly its verdict.
 * @module
 */
import { type EvidenceRecord, isSupported, renderLocator, type SharedFragmentLabel } from "../core/index.js";
import type { ClaimRole, GroundedClaim, GroundedResult, RouteKind, SignatureScore, SupportRef } from "./types.js";

/** A claim before it is checked. */
export interface DraftClaim {
  readonly role: ClaimRole;
  readonly text: string;
  readonly support: readonly EvidenceRecord[];
}

/** The grounding domain of the CI answer paths. */
export const DOMAIN = "ci";

/** A cited record as a result shows it (fields in contract order). */
export function supportRef(r: EvidenceRecord): SupportRef {
  return {
    id: r.id,
    source: r.source,
    locator: {
      kind: r.locator.kind,
      parts: r.locator.parts.map(([k, v]) => [k, v] as const),
      render: renderLocator(r.locator),
    },
    text: r.text,
  };
}

/** Check one drafted claim. */
export function checkClaim(c: DraftClaim): GroundedClaim {
  const verdict = isSupported({ text: c.text, support: c.support });
  return {
    role: c.role,
    text: c.text,
    verified: verdict.supported,
    shape: verdict.shape,
    support: c.support.map(supportRef),
  };
}

/** `<Label>: "<fragment>" appears in '<a>' and '<b>' …` — the shared-fragment claim of specs/claim-grammar.md. */
export function sharedFragment(
  label: SharedFragmentLabel,
  fragment: string,
  records: readonly EvidenceRecord[],
): string {
  return `${label}: "${fragment}" appears in ${records.map((r) => `'${r.id}'`).join(" and ")}.`;
}

/** A grounded answer from drafted claims (in key order of the contract); `signature` is an RCA answer's. */
export function answered(
  question: string,
  kind: RouteKind,
  reason: string,
  drafts: readonly DraftClaim[],
  signature?: SignatureScore,
): GroundedResult {
  const claims = drafts.map(checkClaim);
  const all = claims.length > 0 && claims.every((c) => c.verified);
  const result: GroundedResult = {
    domain: DOMAIN,
    question,
    route: { kind, reason },
    grounded: all,
    refused: false,
    refusal: null,
    claims,
    all_verified: all,
  };
  return signature === undefined ? result : { ...result, signature };
}

/** A refusal: no claims, not grounded. */
export function refused(question: string, kind: RouteKind, reason: string, refusal: string): GroundedResult {
  return {
    domain: DOMAIN,
    question,
    route: { kind, reason },
    grounded: false,
    refused: true,
    refusal,
    claims: [],
    all_verified: false,
  };
}

/** The first line of a record's text (every record's headline claim). */
export function headline(r: EvidenceRecord): string {
  const nl = r.text.indexOf("\n");
  return (nl < 0 ? r.text : r.text.slice(0, nl)).trim();
}
