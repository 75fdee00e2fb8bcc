/**
 * The decision event's body: the caller's description of a decision (by default tool, decision,
 * digests and value-free checks), with the effective policy digest beside the document digest.
 * @module
 */
import type { Digester } from "../../platform/digest.js";
import { auditCheck } from "./reasons.js";
import type { DecisionLike, GatewayCall } from "./types.js";

/** The default body of a decision event: ids, digests and codes, never values. */
export function defaultDescribe(decision: DecisionLike, call: GatewayCall, digest: Digester): Record<string, unknown> {
  const out: Record<string, unknown> = {
    tool: call.tool,
    decision: decision.decision,
    policy_digest: decision.policy_digest,
    ...(decision.enforced === false ? { enforced: false } : {}),
    arguments_digest: digest(call.arguments),
  };
  if (decision.reason !== undefined) out.reason = decision.reason;
  out.checks = decision.checks.map(auditCheck);
  return out;
}

/** `payload` with `effective_digest` right after its `policy_digest` (or first, when it has none). */
export function withEffectiveDigest(payload: Record<string, unknown>, digest: string | null): Record<string, unknown> {
  if (!("policy_digest" in payload)) return { effective_digest: digest, ...payload };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) {
    out[k] = v;
    if (k === "policy_digest") out.effective_digest = digest;
  }
  return out;
}
