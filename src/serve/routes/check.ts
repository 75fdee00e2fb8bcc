/**
 * `POST /v1/check`: ground `{tool, arguments, context}` with the policy in force and answer the
 * Decision exactly as `tessera check --json` prints it. A hold goes to the review queue through
 * the gateway's binding (src/review/binding.ts); the decision is audited before it is answered.
 * What the caller does is in the `Tessera-Action` header: `run`, `refuse` or `hold`.
 * @module
 */
import { randomUUID } from "node:crypto";
import { DECISION_EVENT, decisionPayload } from "../../audit/decision.js";
import { type Decision, type ToolCall, withoutExplainedValues } from "../../checks/decision.js";
import { checkTrustedContext } from "../../checks/engine.js";
import type { Policy } from "../../checks/policy.js";
import { TesseraError } from "../../platform/errors.js";
import { jsonOut } from "../../platform/format.js";
import { isObject } from "../../platform/objects.js";
import { callKey, settleHeld } from "../../review/binding.js";
import { callReviewEvent, REVIEW_EVENT } from "../../review/events.js";
import type { Caller } from "../auth.js";
import type { InForce } from "../current.js";
import { HttpError } from "../errors.js";
import { checkDepth, objectWith, segment } from "../shape.js";
import type { Reply, ServeParts } from "../types.js";

/** What the caller does with the call: run it, refuse it, or wait for the review. */
export type ServeAction = "run" | "refuse" | "hold";

/** The call and its trusted context from a `/v1/check` body; every refusal names its field. */
export function checkRequest(
  body: unknown,
  caller: Caller,
  policy: Policy,
): { call: ToolCall; context: Record<string, unknown> } {
  const b = objectWith(body, ["tool", "arguments", "context"], '{"tool": "...", "arguments": {...}, "context": {...}}');
  if (typeof b.tool !== "string" || b.tool === "")
    throw new HttpError("body_invalid", "tool: expected a non-empty string");
  const args = b.arguments ?? {};
  if (!isObject(args)) throw new HttpError("body_invalid", "arguments: expected an object");
  const context = b.context ?? {};
  if (!isObject(context)) throw new HttpError("body_invalid", "context: expected an object");
  checkDepth(args, "arguments");
  for (const [k, v] of Object.entries(context)) {
    const path = segment("context", k);
    if (!caller.context.has(k))
      throw new HttpError("context_key_forbidden", `${path}: caller \`${caller.name}\` may not set this key`);
    try {
      checkTrustedContext(policy, { [k]: v });
    } catch (err) {
      if (err instanceof TesseraError) throw new HttpError("body_invalid", `${path}: ${err.message}`);
      throw err;
    }
  }
  return { call: { tool: b.tool, arguments: args }, context };
}

/** Decide one `/v1/check` request. */
export function checkRoute(parts: ServeParts, caller: Caller, body: unknown): Promise<Reply> {
  // the whole request decides under the policy in force when it starts, whatever a reload does
  return parts.withPolicy((inForce) => decideCheck(parts, inForce, caller, body));
}

async function decideCheck(parts: ServeParts, inForce: InForce, caller: Caller, body: unknown): Promise<Reply> {
  const { call, context } = checkRequest(body, caller, inForce.gate.policy);
  let explained: Decision;
  try {
    // explained, so a hold keeps the expected and actual values for its reviewer (adr/0116); the
    // answer and the audit event are the Decision without them
    explained = await inForce.gate.check(call, context, { explain: "values" });
  } catch (err) {
    if (err instanceof TesseraError && err.code === "gate_closed")
      throw new HttpError("shutting_down", "(service): shutting down; retry on another instance");
    if (err instanceof TesseraError) throw new HttpError("body_invalid", err.message);
    throw err;
  }
  const decision = withoutExplainedValues(explained);
  // the policy is silent on tools it does not list: the service refuses to guess (adr/0125)
  if (decision.reason === "unlisted_tool" && inForce.gate.policy.defaults.unlisted_tools_set !== true)
    throw new HttpError(
      "unknown_tool",
      `tool: the policy does not list \`${call.tool}\` and does not set \`defaults.unlisted_tools\`; set it to decide unlisted tools`,
    );
  const callId = randomUUID();
  const { reviews, audit } = parts;
  const event = (action: ServeAction, reviewId: string | null) =>
    audit.append(DECISION_EVENT, {
      call_id: callId,
      caller: caller.name,
      ...withEffective(
        decisionPayload(decision, call, context, { digest: reviews.digest, values: parts.auditValues }),
        inForce.effectiveDigest,
      ),
      action,
      review_id: reviewId,
    });
  const reply = (action: ServeAction, reviewId: string | null): Reply => ({
    status: 200,
    body: jsonOut(decision),
    headers: {
      "tessera-call-id": callId,
      "tessera-action": action,
      ...(reviewId === null ? {} : { "tessera-review-id": reviewId }),
    },
  });
  try {
    if (decision.enforced === false) {
      // shadow mode (adr/0128): decided and audited as it is, and the call goes ahead, unheld
      await event("run", null);
      return reply("run", null);
    }
    if (decision.decision !== "hold") {
      const action = decision.decision === "allow" ? "run" : "refuse";
      await event(action, null);
      return reply(action, null);
    }
    const settled = await settleHeld(
      reviews,
      {
        key: callKey(call, {
          digest: reviews.digest,
          policyDigest: decision.policy_digest,
          effectiveDigest: inForce.effectiveDigest,
          contextDigest: reviews.digest(context),
        }),
        arguments: call.arguments,
        decision: explained,
        approvalTtlMs: parts.approvalTtlMs,
        reviewTtlMs: parts.reviewTtlMs,
        contextKeys: Object.keys(context), // names only, for the review page
      },
      parts.clock,
    );
    if (settled.kind === "approved") {
      await event("run", settled.review.id);
      await audit.append(REVIEW_EVENT, callReviewEvent("consumed", settled.review));
      return reply("run", settled.review.id);
    }
    if (settled.kind === "denied") {
      // a reviewer denied exactly this call within the review TTL (adr/0120): refused, with the review
      await event("refuse", settled.review.id);
      return reply("refuse", settled.review.id);
    }
    await event("hold", settled.review.id);
    if (settled.created) await audit.append(REVIEW_EVENT, callReviewEvent("held", settled.review));
    return reply("hold", settled.review.id);
  } catch (err) {
    // the decision could not be recorded (or queued): it is not answered, so nothing runs unaudited
    const message = err instanceof Error ? err.message : String(err);
    throw new HttpError("store_unavailable", `(store): the decision could not be recorded: ${message}`, {
      "retry-after": "1",
    });
  }
}

/** `payload` with `effective_digest` right after `policy_digest`. */
function withEffective(payload: Record<string, unknown>, digest: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(payload)) {
    out[k] = v;
    if (k === "policy_digest") out.effective_digest = digest;
  }
  return out;
}
