/**
 * The policy in force, obtained once per request through `current()`: a request decides with the
 * Gate it started with, and whoever swaps the policy (a reloader) replaces what `current()`
 * returns without touching the request handlers.
 * @module
 */
import { effectivePolicyDigest } from "../checks/effective.js";
import type { Gate } from "../checks/engine.js";
import type { LiveGate } from "../live-gate.js";

/** What one request decides with. */
export interface InForce {
  readonly gate: Gate;
  /** The policy document's digest (`decision.policy_digest`). */
  readonly policyDigest: string;
  /** The effective digest after interpolation (adr/0066), or `""`; approvals are bound to it. */
  readonly effectiveDigest: string;
}

/** Where each request gets the policy in force. */
export type Current = () => InForce;

/** A `Current` that always answers the same gate (the service without reload). */
export function fixedCurrent(gate: Gate, effectiveDigest: string): Current {
  const inForce: InForce = { gate, policyDigest: gate.policy.digest, effectiveDigest };
  return () => inForce;
}

/**
 * Runs one request under the policy in force and holds that policy's gate until the request
 * settles, so a reload in the middle neither changes its policy nor closes its gate.
 */
export type WithPolicy = <T>(fn: (inForce: InForce) => Promise<T>) => Promise<T>;

/** Each request under what `current()` answers when it starts. */
export function withCurrent(current: Current): WithPolicy {
  return (fn) => fn(current());
}

/** Each request on the live gate's policy in force when it starts (adr/0130). */
export function withLiveGate(live: LiveGate): WithPolicy {
  return (fn) =>
    live.use((gate) =>
      fn({ gate, policyDigest: gate.policy.digest, effectiveDigest: effectivePolicyDigest(gate.policy) }),
    );
}

/** What `current()` answers for a live gate: the policy in force now. */
export function liveCurrent(live: LiveGate): Current {
  return () => ({ gate: live, policyDigest: live.policy.digest, effectiveDigest: effectivePolicyDigest(live.policy) });
}
