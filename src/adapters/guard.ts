/**
 * What every framework adapter shares: ground a call with `gate.check`, with trusted context only
 * from the host's function, and turn the decision into what the framework does — run it, deny it
 * with the failing checks as the reason the model reads, or hold it. A held call goes to the
 * framework's own approval, or, with a review store, to the queue `tessera review` decides, bound
 * to the exact call as the gateway binds it (src/review/binding.ts). No verdict logic lives here.
 * @module
 */
import type { Decision } from "../checks/decision.js";
import type { Gate } from "../checks/engine.js";
import { effectivePolicyDigest } from "../checks/effective.js";
import { shadowSummary } from "../checks/mode.js";
import { digestOf } from "../platform/digest.js";
import { callKey, deniedText, settleHeld } from "../review/binding.js";
import { callReviewEvent, REVIEW_EVENT } from "../review/events.js";
import { notRunHead, reasonLines, unlistedLine } from "../review/reasons.js";
import { DEFAULT_REVIEW_TTL_MS, type ReviewStore } from "../review/types.js";

/** Trusted context for a call, from the host (the session the run belongs to); never from the model. */
export type HostContext<RUN> = (
  run: RUN,
) => Readonly<Record<string, unknown>> | Promise<Readonly<Record<string, unknown>>>;

/** A review queue: the store `tessera review` reads (from `openReviewStore`) and where its events go. */
export interface ReviewQueue {
  readonly reviews: ReviewStore;
  readonly audit: { append(type: string, payload: Record<string, unknown>): unknown };
}

/** Options every adapter takes. */
export interface GuardOptions<RUN = unknown> {
  /** Trusted context per call (default: none, `{}`); whatever the model passes stays an argument. */
  readonly context?: HostContext<RUN>;
  /** Hold calls in this queue for `tessera review` instead of the framework's own approval. */
  readonly review?: ReviewQueue;
  /** How long an approval from the queue stays valid (default 15 minutes). */
  readonly approvalTtlMs?: number;
  /** How long a held call waits for a reviewer (default a day). */
  readonly reviewTtlMs?: number;
  /** The queue's clock (default: the wall clock). */
  readonly clock?: () => number;
}

/** What the framework does with a call. */
export type Verdict =
  | { readonly action: "run"; readonly decision: Decision; readonly reviewId: string | null }
  | { readonly action: "deny"; readonly reason: string; readonly decision: Decision | null }
  | { readonly action: "ask"; readonly reason: string; readonly decision: Decision };

/** How long an approval from the queue stays valid unless configured: 15 minutes, as in the gateway. */
export const DEFAULT_APPROVAL_TTL_MS = 15 * 60_000;

/** The reason a model reads for a call that does not run. */
export function reasonOf(d: Decision): string {
  const why = d.reason === "unlisted_tool" ? [unlistedLine(d.tool, d.decision)] : reasonLines(d);
  return [notRunHead(d), ...why].join("\n");
}

/** The guard an adapter wraps around its framework's hooks. */
export interface Guard<RUN> {
  readonly gate: Gate;
  /** What runs in shadow mode (decisions audited, not enforced), or null when the policy is enforced. */
  readonly shadow: string | null;
  /** Ground a call and say what to do with it; every failure is a denial, never a run. */
  verdict(tool: string, args: Readonly<Record<string, unknown>>, run: RUN): Promise<Verdict>;
  /** The digest that identifies a call's arguments (what a framework approval was given for). */
  digest(args: Readonly<Record<string, unknown>>): string;
}

/** A guard over `gate`. */
export function createGuard<RUN>(gate: Gate, options: GuardOptions<RUN> = {}): Guard<RUN> {
  const clock = options.clock ?? Date.now;
  const approvalTtlMs = options.approvalTtlMs ?? DEFAULT_APPROVAL_TTL_MS;
  const reviewTtlMs = options.reviewTtlMs ?? DEFAULT_REVIEW_TTL_MS;
  const shadow = shadowSummary(gate.policy);
  // said once, where the host's warnings go: a guard over a shadow policy lets blocked calls run
  if (shadow !== null) process.emitWarning(`tessera: ${shadow}`, { code: "TESSERA_SHADOW_MODE" });
  // computed once, on the first hold (scrypt is slow on purpose)
  let effective: string | undefined;
  const effectiveDigest = () => {
    effective ??= effectivePolicyDigest(gate.policy);
    return effective;
  };
  return {
    gate,
    shadow,
    digest: (args) => digestOf(args),
    async verdict(tool, args, run) {
      let context: Readonly<Record<string, unknown>>;
      let decision: Decision;
      try {
        context = options.context === undefined ? {} : await options.context(run);
        decision = await gate.check({ tool, arguments: args }, context);
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        return { action: "deny", reason: `blocked by tessera: the check could not run: ${message}`, decision: null };
      }
      // shadow mode (adr/0128): audited by the gate, reported on the decision, and run
      if (decision.decision === "allow" || decision.enforced === false)
        return { action: "run", decision, reviewId: null };
      if (decision.decision === "block") return { action: "deny", reason: reasonOf(decision), decision };
      if (options.review === undefined) return { action: "ask", reason: reasonOf(decision), decision };
      const { reviews, audit } = options.review;
      try {
        const settled = await settleHeld(
          reviews,
          {
            key: callKey(
              { tool, arguments: args },
              {
                digest: reviews.digest,
                policyDigest: decision.policy_digest,
                effectiveDigest: effectiveDigest(),
                contextDigest: reviews.digest(context),
              },
            ),
            arguments: args,
            decision,
            approvalTtlMs,
            reviewTtlMs,
          },
          clock,
        );
        if (settled.kind === "approved") {
          await audit.append(REVIEW_EVENT, callReviewEvent("consumed", settled.review));
          return { action: "run", decision, reviewId: settled.review.id };
        }
        // a reviewer denied exactly this call within the review TTL: the model reads their reason
        if (settled.kind === "denied")
          return { action: "deny", reason: deniedText(settled.review, settled.until), decision };
        if (settled.created) await audit.append(REVIEW_EVENT, callReviewEvent("held", settled.review));
        const id = settled.review.id;
        return {
          action: "deny",
          reason: `held for human review as ${id}: a reviewer can run \`tessera review approve ${id}\`, then the identical call runs once\n${reasonLines(decision).join("\n")}`,
          decision,
        };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        return { action: "deny", reason: `blocked by tessera: the review queue failed: ${message}`, decision };
      }
    },
  };
}

/**
 * Calls sent to a framework's own approval, by call id: the arguments digest the approval was asked
 * for. An approved call runs once: its id is then spent, however often the framework replays the
 * approval. Bounded, so calls that were never approved nor run do not pile up.
 */
export class ApprovalMemo {
  private readonly asked = new Map<string, string>();
  private readonly spent = new Set<string>();
  constructor(private readonly limit = 1024) {}
  /** Remember that the call `id` with these arguments was sent to the framework's approval. */
  ask(id: string, digest: string): void {
    if (this.spent.has(id)) return;
    // two different calls under one id: the approval a person gives for the id cannot say which
    // they saw, so it runs neither ("" matches no digest)
    const earlier = this.asked.get(id);
    this.asked.set(id, earlier !== undefined && earlier !== digest ? "" : digest);
    if (this.asked.size > this.limit) this.asked.delete(this.asked.keys().next().value as string);
  }
  /** True once for a call that was asked with exactly these arguments; the id is spent either way. */
  use(id: string, digest: string): boolean {
    const asked = this.asked.get(id);
    this.asked.delete(id);
    this.spent.add(id);
    if (this.spent.size > this.limit) this.spent.delete(this.spent.values().next().value as string);
    return asked === digest;
  }
}
