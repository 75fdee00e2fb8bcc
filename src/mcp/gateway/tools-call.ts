/**
 * The tools/call pipeline: measure the call, check its tool's pin, refuse undeclared and shadow
 * keys, ground it with the policy, consult the review queue, and end in one tagged outcome —
 * forward, refuse or hold — which `answerCall` turns into the result. Each step writes its decision
 * event before anything reaches the upstream (specs/gateway.md, "Order of writes").
 * @module
 */
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { callReviewEvent, REVIEW_EVENT } from "../../review/events.js";
import { callKey, deniedText, REVIEW_DENIED, settleHeld } from "../../review/binding.js";
import { type CallSetup, DECISION_EVENT, gatewayDecisionEvent, type MeasuredCall, measure } from "./call-setup.js";
import { refusedArgument } from "./declared.js";
import { forwardCall, type HandlerExtra } from "./forward.js";
import { decisionCodes, reasonLines } from "./reasons.js";
import type { DecisionLike } from "./types.js";
import { UpstreamError } from "./upstream.js";
import { refusal, type ShadowVerdict } from "./verdict.js";

/** What the gateway does with one call, once decided. */
export type CallOutcome =
  | {
      readonly kind: "forward";
      readonly reviewId: string | null;
      readonly policyDigest: string;
      /** Shadow mode: the decision the gateway did not enforce. */
      readonly shadow?: ShadowVerdict;
    }
  | {
      readonly kind: "refuse";
      readonly decision: "block" | "error";
      readonly policyDigest: string | null;
      readonly codes: readonly string[];
      readonly text: string;
      /** The review a refusal comes from (a denial, adr/0120). */
      readonly reviewId?: string;
    }
  | {
      readonly kind: "hold";
      readonly reviewId: string;
      readonly policyDigest: string;
      readonly codes: readonly string[];
      readonly text: string;
    };

/** The tools/call request's params, as the SDK validated them. */
export interface ToolCallParams {
  name: string;
  arguments?: Record<string, unknown> | undefined;
  _meta?: Record<string, unknown> | undefined;
}

/** Decide and answer one tools/call. */
export async function handleToolCall(
  s: CallSetup,
  params: ToolCallParams,
  extra: HandlerExtra,
): Promise<CallToolResult> {
  const call = measure(params.name, params.arguments, s.reviews.digest);
  let outcome = await decideCall(s, call);
  // --hold-wait: a decision given while the call waits is met as a repeat of the call would be
  if (outcome.kind === "hold" && (await s.holdWaits?.decided(outcome.reviewId, extra)))
    outcome = await decideCall(s, call);
  return answerCall(s, call, params, outcome, extra);
}

/** A block the gateway decides itself, audited with its code. */
async function gatewayRefusal(
  s: CallSetup,
  c: MeasuredCall,
  code: string,
  definitionDigest: string | null,
  text: string,
): Promise<CallOutcome> {
  await s.append(DECISION_EVENT, gatewayDecisionEvent(s, c, code, definitionDigest, "reject"));
  return { kind: "refuse", decision: "block", policyDigest: s.policyDigest, codes: [code], text };
}

/** Every step in order; the first that decides ends the call. Never throws. */
export async function decideCall(s: CallSetup, c: MeasuredCall): Promise<CallOutcome> {
  try {
    if (c.argumentsDigest === null)
      return await gatewayRefusal(s, c, "input_too_large", null, `blocked by tessera: ${c.tooLarge}`);
    const pin = await s.pins.check(c.name);
    if (!pin.ok) return await gatewayRefusal(s, c, pin.code, pin.digest, `blocked by tessera: ${pin.message}`);
    const refused = refusedArgument(c.name, pin.inputSchema, c.args, s.undeclaredRule(c.name));
    if (refused !== null)
      return await gatewayRefusal(s, c, refused.code, pin.digest, `blocked by tessera: ${refused.message}`);
    let decision: DecisionLike;
    try {
      decision = await s.decide({ tool: c.name, arguments: c.args });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      return await gatewayRefusal(
        s,
        c,
        "gate_error",
        pin.digest,
        `blocked by tessera: the check could not run: ${message}`,
      );
    }
    return await policyOutcome(s, c, c.argumentsDigest, decision, pin.digest);
  } catch (err) {
    return failedOutcome(s, c, err);
  }
}

/** What the policy's decision, and the review queue for a hold, make of the call. */
async function policyOutcome(
  s: CallSetup,
  c: MeasuredCall,
  argumentsDigest: string,
  decision: DecisionLike,
  definitionDigest: string,
): Promise<CallOutcome> {
  const codes = decisionCodes(decision);
  const record = (action: "forward" | "reject" | "hold", reviewId: string | null, recorded = codes) =>
    s.append(DECISION_EVENT, {
      call_id: c.callId,
      ...s.describe(decision, { tool: c.name, arguments: c.args }),
      definition_digest: definitionDigest,
      action,
      review_id: reviewId,
      codes: recorded,
    });
  const policyDigest = decision.policy_digest;
  // shadow mode (adr/0128): the decision is audited as it is, and the call goes ahead, unheld
  if (decision.decision === "allow" || decision.enforced === false) {
    await record("forward", null);
    const shadow = decision.enforced === false ? { shadow: { decision: decision.decision, codes } } : {};
    return { kind: "forward", reviewId: null, policyDigest, ...shadow };
  }
  if (decision.decision === "block") {
    await record("reject", null);
    const text = [`blocked by tessera (policy ${policyDigest}):`, ...reasonLines(decision)].join("\n");
    return { kind: "refuse", decision: "block", policyDigest, codes, text };
  }
  const binding = {
    digest: s.reviews.digest,
    policyDigest,
    effectiveDigest: s.effectiveDigestOf(policyDigest) ?? "",
    contextDigest: s.contextDigest,
  };
  const key = callKey({ tool: c.name, arguments: c.args }, binding, argumentsDigest);
  const settled = await settleHeld(
    s.reviews,
    {
      key,
      arguments: c.args,
      decision, // explained (with values) when the gateway's decide asks for it: kept for the reviewer, adr/0116
      approvalTtlMs: s.approvalTtlMs,
      reviewTtlMs: s.reviewTtlMs,
      contextKeys: s.contextKeys,
    },
    s.clock,
  );
  if (settled.kind === "approved") {
    await record("forward", settled.review.id);
    await s.append(REVIEW_EVENT, callReviewEvent("consumed", settled.review));
    return { kind: "forward", reviewId: settled.review.id, policyDigest };
  }
  if (settled.kind === "denied") {
    const denied = [REVIEW_DENIED, ...codes];
    await record("reject", settled.review.id, denied);
    const text = deniedText(settled.review, settled.until);
    return { kind: "refuse", decision: "block", policyDigest, codes: denied, text, reviewId: settled.review.id };
  }
  const { review, created } = settled;
  await record("hold", review.id);
  if (created) await s.append(REVIEW_EVENT, callReviewEvent("held", review));
  const text = [
    `held for human review as ${review.id}: a reviewer can run \`tessera review approve ${review.id}\`, then repeat the identical call`,
    ...reasonLines(decision),
  ].join("\n");
  return { kind: "hold", reviewId: review.id, policyDigest, codes, text };
}

/** A step failed: the upstream (its tool definitions could not be read) or the store. Fail closed. */
async function failedOutcome(s: CallSetup, c: MeasuredCall, err: unknown): Promise<CallOutcome> {
  if (err instanceof UpstreamError) {
    // retryable: the upstream is down
    await s.append(DECISION_EVENT, gatewayDecisionEvent(s, c, err.code, null, "reject")).catch(() => undefined);
    return {
      kind: "refuse",
      decision: "error",
      policyDigest: s.policyDigest,
      codes: [err.code],
      text: `the upstream failed (${err.code}): ${err.message}`,
    };
  }
  // the store or audit log failed: the call is not forwarded
  const message = err instanceof Error ? err.message : String(err);
  s.diagnostic(`tessera gateway: ${c.name}: ${message}`);
  return {
    kind: "refuse",
    decision: "block",
    policyDigest: s.policyDigest,
    codes: ["gateway_error"],
    text: `blocked by tessera: the gateway could not record its decision: ${message}`,
  };
}

/** The result an outcome gives: the upstream's (forward) or the gateway's own (refuse, hold). */
export function answerCall(
  s: CallSetup,
  c: MeasuredCall,
  params: ToolCallParams,
  outcome: CallOutcome,
  extra: HandlerExtra,
): Promise<CallToolResult> | CallToolResult {
  switch (outcome.kind) {
    case "forward":
      return forwardCall(
        s.upstream,
        s.append,
        s.diagnostic,
        {
          params,
          callId: c.callId,
          name: c.name,
          argumentsDigest: c.argumentsDigest!,
          reviewId: outcome.reviewId,
          policyDigest: outcome.policyDigest,
          ...(outcome.shadow !== undefined ? { shadow: outcome.shadow } : {}),
        },
        extra,
      );
    case "refuse":
      return refusal({ ...outcome, callId: c.callId });
    case "hold":
      return refusal({ ...outcome, decision: "hold", callId: c.callId });
  }
}
