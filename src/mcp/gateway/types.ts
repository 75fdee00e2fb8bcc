/**
 * The narrow contracts the gateway runs on: a decision function (the check engine behind it), an
 * audit sink and a clock. Keeping them narrow lets the proxy, queue and pinning be tested and
 * reused with any engine that produces a DESIGN.md §5 decision.
 * @module
 */

/** A proposed tool call as the gateway grounds it. */
export interface GatewayCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** The part of a check result (DESIGN.md §5 decision JSON) the gateway reads. */
export interface CheckLike {
  readonly argument: string;
  readonly check: number;
  readonly source: string | null;
  readonly status: string;
  readonly outcome: "allow" | "hold" | "block";
  readonly attempts?: number;
  readonly conditions?: readonly { readonly column?: string; readonly ok: boolean; readonly code?: string }[];
  readonly error?: { readonly code: string; readonly message?: string };
}

/** The part of a decision (DESIGN.md §5) the gateway reads. */
export interface DecisionLike {
  readonly decision: "allow" | "hold" | "block";
  readonly policy_digest: string;
  /** Why no check decided (`unlisted_tool`), or why the gateway decided itself (`tool_definition_changed`). */
  readonly reason?: string;
  readonly checks: readonly CheckLike[];
}

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
