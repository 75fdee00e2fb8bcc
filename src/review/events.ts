/**
 * The `tessera.review.v1` event: one shape for every review action, keys in a fixed order, ids and
 * digests only (specs/gateway.md).
 * @module
 */
import type { ReviewRecord } from "./types.js";

/** The review event type. */
export const REVIEW_EVENT = "tessera.review.v1";

/** What happened in the review queue or to a tool pin. */
export type ReviewAction =
  | "held"
  | "approved"
  | "denied"
  | "consumed"
  | "tool_pinned"
  | "tool_changed"
  | "tool_approved";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The payload of a review event about a held call. */
export function callReviewEvent(
  action: "held" | "approved" | "denied" | "consumed",
  r: ReviewRecord,
): Record<string, unknown> {
  return {
    action,
    review_id: r.id,
    tool: r.tool,
    arguments_digest: r.arguments_digest,
    policy_digest: r.policy_digest,
    effective_digest: r.effective_digest ?? "",
    context_digest: r.context_digest,
    definition_digest: null,
    pinned_digest: null,
    reviewer: r.decided_by,
    expires_at: iso(r.expires_at),
    kinds: [...new Set(r.reasons.map((x) => x.kind))],
    codes: [...new Set(r.reasons.flatMap((x) => x.codes))],
  };
}

/** The payload of a review event about a tool definition. */
export function toolReviewEvent(
  action: "tool_pinned" | "tool_changed" | "tool_approved",
  tool: string,
  definitionDigest: string,
  pinnedDigest: string,
  reviewer: string | null,
): Record<string, unknown> {
  return {
    action,
    review_id: null,
    tool,
    arguments_digest: null,
    policy_digest: null,
    effective_digest: null,
    context_digest: null,
    definition_digest: definitionDigest,
    pinned_digest: pinnedDigest,
    reviewer,
    expires_at: null,
    kinds: [],
    codes: action === "tool_changed" ? ["tool_definition_changed"] : [],
  };
}
