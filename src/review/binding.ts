/**
 * How a held call meets its approval: the key it is bound to (tool, arguments digest, policy
 * digest, effective policy digest, context digest — each digest the store's keyed one), one live
 * approval of exactly that key used once, or else the call queued for a reviewer. The MCP gateway
 * and the framework adapters both hold calls through here, so an approval means the same thing
 * wherever `tessera review approve` gave it.
 * @module
 */
import type { Digester } from "../platform/digest.js";
import { holdReasons, type DecisionLike } from "./reasons.js";
import type { CallKey, ReviewRecord, ReviewStore } from "./types.js";

/** What an approval is bound to besides the call itself. */
export interface Binding {
  /** The store's keyed digest (`reviews.digest`), for the arguments. */
  readonly digest: Digester;
  readonly policyDigest: string;
  /** `effectivePolicyDigest(policy)`, or `""` when the caller has none (adr/0066). */
  readonly effectiveDigest: string;
  /** The store's digest of the trusted context the call was grounded with. */
  readonly contextDigest: string;
}

/**
 * The identity an approval of `call` is bound to. `argumentsDigest` is `binding.digest(call.arguments)`
 * when the caller has already computed it (the gateway digests every call's arguments once, on arrival).
 */
export function callKey(
  call: { readonly tool: string; readonly arguments: Readonly<Record<string, unknown>> },
  binding: Binding,
  argumentsDigest: string = binding.digest(call.arguments),
): CallKey {
  return {
    tool: call.tool,
    arguments_digest: argumentsDigest,
    policy_digest: binding.policyDigest,
    effective_digest: binding.effectiveDigest,
    context_digest: binding.contextDigest,
  };
}

/**
 * What became of a held call: an approval of exactly it was used now; a reviewer denied exactly it
 * within the review TTL, so it is refused with their reason (adr/0120); or it waits in the queue.
 */
export type Settled =
  | { readonly kind: "approved"; readonly review: ReviewRecord }
  | { readonly kind: "denied"; readonly review: ReviewRecord; readonly until: number }
  | { readonly kind: "held"; readonly review: ReviewRecord; readonly created: boolean };

/** The code of a call refused because a reviewer denied exactly it (adr/0120). */
export const REVIEW_DENIED = "review_denied";

/** A held call to settle. */
export interface HeldCall {
  readonly key: CallKey;
  readonly arguments: Readonly<Record<string, unknown>>;
  /** The `hold` decision; its holding checks become the reasons the reviewer sees. */
  readonly decision: DecisionLike;
  readonly approvalTtlMs: number;
  readonly reviewTtlMs: number;
  /** The names of the trusted context's keys the call was grounded with (shown to the reviewer; never the values). */
  readonly contextKeys?: readonly string[];
}

/**
 * Use one live approval of exactly this call; else refuse it when a reviewer denied exactly it
 * within the review TTL; else queue it (an identical pending call is reused). The caller audits what
 * happened (`callReviewEvent("consumed" | "held", …)`, a decision with `review_denied`) in its own order.
 */
export async function settleHeld(reviews: ReviewStore, held: HeldCall, clock: () => number): Promise<Settled> {
  const approved = await reviews.consume(held.key, clock());
  if (approved !== null) return { kind: "approved", review: approved };
  // the newest review of exactly this call decides: a denial stands for one review TTL from when it
  // was given; a newer hold (after that, or from a holder with a shorter TTL) replaces it
  const now = clock();
  const latest = await reviews.latest(held.key, now);
  if (latest !== null && latest.state === "denied" && latest.decided_at !== null) {
    const until = latest.decided_at + held.reviewTtlMs;
    if (now < until) return { kind: "denied", review: latest, until };
  }
  const { review, created } = await reviews.hold(
    {
      ...held.key,
      arguments: held.arguments,
      reasons: holdReasons(held.decision),
      approval_ttl_ms: held.approvalTtlMs,
      review_ttl_ms: held.reviewTtlMs,
      // the decision as grounded (with values when the caller explained it, adr/0116), for the review page
      explained: {
        checks: held.decision.checks,
        context_keys: held.contextKeys === undefined ? null : [...held.contextKeys].sort(),
      },
    },
    clock(),
  );
  return { kind: "held", review, created };
}

/**
 * What the agent reads for a call a reviewer denied: who, their reason, the review, and until when
 * the identical call is refused (`until`, from `Settled`).
 */
export function deniedText(review: ReviewRecord, until: number): string {
  const who = review.decided_by ?? "a reviewer";
  const why =
    review.decision_reason === null
      ? `denied by ${who} (no reason given)`
      : `denied by ${who}: ${review.decision_reason}`;
  return `${why}\n(review ${review.id}; the identical call is refused until ${new Date(until).toISOString()}, then held for review anew)`;
}
