/**
 * The policy in force, obtained once per request through `current()`: a request decides with the
 * Gate it started with, and whoever swaps the policy (a reloader) replaces what `current()`
 * returns without touching the request handlers.
 * @module
 */
import type { Gate } from "../checks/engine.js";

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
