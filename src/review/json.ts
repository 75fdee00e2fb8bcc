/**
 * A review as JSON: what `tessera review show --json` prints and `GET /v1/reviews/<id>` answers.
 * @module
 */
import type { ReviewRecord } from "./types.js";

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A review as `--json` prints it: the record's keys in order, times as ISO-8601. */
export function reviewJson(r: ReviewRecord): Record<string, unknown> {
  return {
    id: r.id,
    state: r.state,
    tool: r.tool,
    arguments: r.arguments,
    arguments_digest: r.arguments_digest,
    policy_digest: r.policy_digest,
    effective_digest: r.effective_digest,
    context_digest: r.context_digest,
    why: [...new Set(r.reasons.map((x) => x.kind))],
    reasons: r.reasons,
    approval_ttl_ms: r.approval_ttl_ms,
    created_at: iso(r.created_at),
    decided_at: iso(r.decided_at),
    decided_by: r.decided_by,
    decision_reason: r.decision_reason,
    expires_at: iso(r.expires_at),
    consumed_at: iso(r.consumed_at),
  };
}
