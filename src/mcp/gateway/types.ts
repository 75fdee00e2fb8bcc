/**
 * The narrow contracts the gateway runs on: a decision function (the check engine behind it), an
 * audit sink and a clock. Keeping them narrow lets the proxy, queue and pinning be tested and
 * reused with any engine that produces a specs/json-shapes.md decision.
 * @module
 */

import type { DecisionLike } from "../../review/reasons.js";

/** A proposed tool call as the gateway grounds it. */
export interface GatewayCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

export type { CheckLike, DecisionLike } from "../../review/reasons.js";

/** Grounds one call; the CLI wires `createGate(policy).check(call, context)` in here. */
export type Decide = (call: GatewayCall) => Promise<DecisionLike>;

/** Where the gateway writes its versioned events (`tessera.decision.v1`, …); one transaction per event. */
export interface AuditSink {
  /** Append one event of `type` (its own transaction). */
  append(type: string, payload: Record<string, unknown>): unknown;
  /** Release the log. */
  close(): unknown;
}

/** Milliseconds since the epoch; injected so expiry is testable without sleeping. */
export type Clock = () => number;
