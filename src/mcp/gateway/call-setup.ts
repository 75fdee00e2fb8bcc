/**
 * What every step of the tools/call pipeline runs on, fixed when the gateway is created, and the
 * call as the pipeline sees it once its arguments are measured and digested.
 * @module
 */
import { randomUUID } from "node:crypto";
import type { Digester } from "../../platform/digest.js";
import type { ReviewStore } from "../../review/types.js";
import { exceedsTotals, LIMITS } from "../limits.js";
import type { UndeclaredRule } from "./declared.js";
import type { HoldWaits } from "./hold-wait.js";
import type { ToolPins } from "./pins.js";
import type { Clock, Decide, DecisionLike, GatewayCall } from "./types.js";
import type { Upstream } from "./upstream.js";

/** The decision event type. */
export const DECISION_EVENT = "tessera.decision.v1";

/**
 * A proxy passes large payloads on, so only nesting is bounded: digesting, grounding and storing a
 * call all walk its arguments, and arguments nested thousands deep would exhaust the stack.
 */
const GATEWAY_LIMITS = {
  totalChars: Number.POSITIVE_INFINITY,
  totalElements: Number.POSITIVE_INFINITY,
  depth: LIMITS.depth,
};

/** The gateway's fixed parts, as the pipeline's steps use them. */
export interface CallSetup {
  readonly upstream: Upstream;
  readonly pins: ToolPins;
  readonly reviews: ReviewStore;
  readonly decide: Decide;
  /** The decision event's body (with the effective digest beside the document digest). */
  readonly describe: (decision: DecisionLike, call: GatewayCall) => Record<string, unknown>;
  readonly append: (type: string, payload: Record<string, unknown>) => Promise<void>;
  readonly clock: Clock;
  readonly approvalTtlMs: number;
  readonly reviewTtlMs: number;
  /** The digest of the policy in force now (it may be reloaded, adr/0130). */
  readonly policyDigest: string | null;
  /** The effective digest of the policy with this document digest (adr/0066), or null. */
  readonly effectiveDigestOf: (policyDigest: string | null) => string | null;
  readonly contextDigest: string;
  /** The trusted context's key names, kept with a held call for its reviewer. */
  readonly contextKeys: readonly string[];
  readonly undeclaredRule: (tool: string) => UndeclaredRule;
  readonly diagnostic: (line: string) => void;
  /** With `--hold-wait`: held calls wait here for a decision (adr/0121). */
  readonly holdWaits?: HoldWaits;
}

/** One call, measured: arguments too deep to digest are never grounded nor forwarded (`argumentsDigest: null`). */
export interface MeasuredCall {
  readonly callId: string;
  readonly name: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly argumentsDigest: string | null;
  /** Why the arguments are too deep, when they are. */
  readonly tooLarge: string | null;
}

/** Measure and digest (with the store's keyed `digest`) the arguments of a call named `name`. */
export function measure(
  name: string,
  given: Readonly<Record<string, unknown>> | undefined,
  digest: Digester,
): MeasuredCall {
  const tooLarge = exceedsTotals(given ?? {}, GATEWAY_LIMITS);
  const args = tooLarge === null ? (given ?? {}) : {};
  return { callId: randomUUID(), name, args, argumentsDigest: tooLarge === null ? digest(args) : null, tooLarge };
}

/** The decision event of a call the gateway decided itself (`code`), before or instead of the policy. */
export function gatewayDecisionEvent(
  s: CallSetup,
  c: MeasuredCall,
  code: string,
  definitionDigest: string | null,
  action: "reject" | "drop",
): Record<string, unknown> {
  return {
    call_id: c.callId,
    ...s.describe(
      {
        decision: "block",
        tool: c.name,
        policy_digest: s.policyDigest,
        reason: code,
        checks: [],
      } as unknown as DecisionLike,
      { tool: c.name, arguments: c.args },
    ),
    ...(c.argumentsDigest === null ? { arguments_digest: null } : {}),
    definition_digest: definitionDigest,
    action,
    review_id: null,
    codes: [code],
  };
}
