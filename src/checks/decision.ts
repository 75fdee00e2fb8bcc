/**
 * The Decision JSON of specs/json-shapes.md. Objects are built in contract key order so `--json` output
 * is byte-identical for the same inputs.
 * @module
 */
import type { ConditionCode, Outcome, Scalar } from "../core/index.js";
import type { SourceErrorCode } from "./source.js";

/** How one check ended. */
export type CheckStatus = "matched" | "mismatch" | "error";

/** Why a check errored: a Source failure, a binding or column problem, or an invalid protected argument. */
export type CheckErrorCode = SourceErrorCode | "binding_missing" | "column_missing" | "argument_invalid";

/** A tool call as an agent proposes it. */
export interface ToolCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** Trusted context from the host; only its scalar fields are bound. */
export type TrustedContext = Readonly<Record<string, unknown>>;

/** Options of one `check`: `explain: "values"` adds argument values and `expected`/`actual`. */
export interface CheckOptions {
  readonly explain?: "values";
}

/** One condition's result: the condition's own keys, then `ok`, `code` when failing, and values when explained. */
export type ConditionReport = Readonly<Record<string, unknown>> & {
  readonly ok: boolean;
  readonly code?: ConditionCode;
};

/** One check of one protected argument. */
export interface CheckReport {
  readonly argument: string;
  /** Index of the check in the argument's `ground.checks`. */
  readonly check: number;
  readonly source: string;
  readonly status: CheckStatus;
  readonly outcome: Outcome;
  /** Source requests made (0 when none was: invalid argument, missing binding). */
  readonly attempts: number;
  /** Rows the last answering request returned; null when no request answered. */
  readonly rows: number | null;
  readonly conditions: readonly ConditionReport[];
  readonly error?: { readonly code: CheckErrorCode; readonly message: string };
  /** The grounded argument's value; only with `explain: "values"`. */
  readonly value?: Scalar;
}

/** Why a decision was reached without checks. */
/**
 * Why no check decided: the policy does not list the tool (`defaults.unlisted_tools`), or the name is
 * not a listed tool's but folds to one (`Refund_order`, `refund-order`, `refund_order` + U+200B), which
 * a lenient dispatcher could run as that tool — always `block`.
 */
export type DecisionReason = "unlisted_tool" | "tool_name_shadows";

/** The gate's answer for one tool call. */
export interface Decision {
  readonly decision: Outcome;
  readonly tool: string;
  readonly policy_digest: string;
  /**
   * `false` when the decision was made in shadow mode (adr/0128): computed and audited, but the call
   * is allowed whatever `decision` says. Absent when the decision is enforced.
   */
  readonly enforced?: false;
  /** Present when no check decided: the tool is not in the policy, or its name shadows a listed one. */
  readonly reason?: DecisionReason;
  readonly checks: readonly CheckReport[];
}

/** The exit code `tessera check` uses for a decision (specs/cli.md); pass `enforced` so a shadow decision exits 0. */
export function exitCodeFor(decision: Outcome, enforced: boolean = true): 0 | 1 | 3 {
  if (!enforced) return 0;
  return decision === "allow" ? 0 : decision === "block" ? 1 : 3;
}

/** Whether the call may go ahead: the decision allows it, or it was made in shadow mode. */
export function letsThrough(d: { readonly decision: string; readonly enforced?: boolean }): boolean {
  return d.decision === "allow" || d.enforced === false;
}

/**
 * `d` as a decision made without `explain: "values"`: no grounded values, no expected or actual
 * values (for a host that decides with them for its own use and answers without them).
 */
export function withoutExplainedValues(d: Decision): Decision {
  const checks = d.checks.map((c): CheckReport => {
    const { value: _v, ...rest } = c;
    return {
      ...rest,
      conditions: rest.conditions.map((cond) => {
        const { expected: _e, actual: _a, ...r } = cond as Record<string, unknown>;
        return r as CheckReport["conditions"][number];
      }),
    };
  });
  return { ...d, checks };
}
