/**
 * The `tessera.decision.v1` audit payload: ids and digests by default, values only when asked.
 * @module
 */
import type { CheckReport, Decision, ToolCall, TrustedContext } from "../checks/decision.js";
import type { Digester } from "../platform/digest.js";

/** The event type of a gate decision. */
export const DECISION_EVENT = "tessera.decision.v1";

/**
 * Options of `decisionPayload`: the store's keyed digest (`log.digest`, adr/0071), and `values: true`
 * to keep arguments, context and explained values.
 */
export interface DecisionPayloadOptions {
  readonly digest: Digester;
  readonly values?: boolean;
}

function redactCheck(c: CheckReport): Record<string, unknown> {
  const out: Record<string, unknown> = {
    argument: c.argument,
    check: c.check,
    source: c.source,
    status: c.status,
    outcome: c.outcome,
    attempts: c.attempts,
    rows: c.rows,
    conditions: c.conditions.map((cond) => {
      const { expected: _e, actual: _a, ...rest } = cond as Record<string, unknown>;
      return rest;
    }),
  };
  if (c.error !== undefined) out.error = c.error;
  return out;
}

/**
 * The payload of a decision event: tool, decision, policy digest, the keyed digests of the call's
 * arguments and the trusted context, and the checks; argument and row values only with `values`.
 */
export function decisionPayload(
  decision: Decision,
  call: ToolCall,
  context: TrustedContext,
  options: DecisionPayloadOptions,
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    tool: decision.tool,
    decision: decision.decision,
    policy_digest: decision.policy_digest,
    // shadow mode (adr/0128): the decision was audited, not enforced
    ...(decision.enforced === false ? { enforced: false } : {}),
    arguments_digest: options.digest(call.arguments),
    context_digest: options.digest(context),
  };
  if (decision.reason !== undefined) out.reason = decision.reason;
  out.checks = options.values ? decision.checks : decision.checks.map(redactCheck);
  if (options.values) {
    out.arguments = call.arguments;
    out.context = context;
  }
  return out;
}
