/**
 * What a decision says, in the forms the gateway and the framework adapters need: stable codes, the
 * reasons a reviewer sees, a value-free projection for the audit log, and one-line text for the agent.
 * @module
 */
import type { HoldKind, HoldReason } from "./types.js";

/**
 * The part of a check result (specs/json-shapes.md decision JSON) a holder of calls reads (the
 * gateway, an adapter).
 */
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

/** The part of a decision (specs/json-shapes.md) a holder of calls reads (the gateway, an adapter). */
export interface DecisionLike {
  readonly decision: "allow" | "hold" | "block";
  readonly policy_digest: string;
  /** `false` for a shadow-mode decision (adr/0128): the call goes ahead whatever `decision` says. */
  readonly enforced?: false;
  /** Why no check decided (`unlisted_tool`), or why the gateway decided itself (`tool_definition_changed`). */
  readonly reason?: string;
  readonly checks: readonly CheckLike[];
}

/**
 * The first line of why a call does not run, for the model or the agent that asked: held or
 * blocked, and by which policy.
 */
export function notRunHead(decision: Pick<DecisionLike, "decision" | "policy_digest">): string {
  return decision.decision === "hold"
    ? `held by tessera (policy ${decision.policy_digest}): a person must approve this call`
    : `blocked by tessera (policy ${decision.policy_digest})`;
}

/** Why a tool the policy does not list did not run; `tool` as the caller prints names. */
export function unlistedLine(tool: string, decision: string): string {
  return `the policy does not list \`${tool}\` and \`defaults.unlisted_tools\` is ${decision}`;
}

/** A check's stable codes: its error code, or the codes of the conditions that failed. */
export function codesOf(check: CheckLike): string[] {
  if (check.error !== undefined) return [check.error.code];
  const failed = (check.conditions ?? []).filter((c) => !c.ok).map((c) => c.code ?? "condition_failed");
  if (failed.length > 0) return [...new Set(failed)];
  return check.status === "matched" ? [] : [check.status];
}

/** Every code of the checks that did not allow, in check order, without repeats. */
export function decisionCodes(decision: DecisionLike): string[] {
  const out = new Set<string>();
  for (const c of decision.checks) if (c.outcome !== "allow") for (const code of codesOf(c)) out.add(code);
  return [...out];
}

/** A failed condition in words: `customer_id not_equal (ctx customer_id)`, `rows row_count (value 0)`. */
export function describeCondition(c: NonNullable<CheckLike["conditions"]>[number]): string {
  const cond = c as Readonly<Record<string, unknown>>;
  const against =
    typeof cond.ctx === "string"
      ? ` (ctx ${cond.ctx})`
      : typeof cond.arg === "string"
        ? ` (arg ${cond.arg})`
        : "value" in cond
          ? ` (value ${JSON.stringify(cond.value)})`
          : "";
  return `${c.column ?? "rows"} ${c.code ?? "condition_failed"}${against}`;
}

/** What went wrong in one check: the source's error message, or its failed conditions. */
export function detailOf(check: CheckLike): string | null {
  if (check.error !== undefined) return check.error.message ?? null;
  const failed = (check.conditions ?? []).filter((c) => !c.ok).map(describeCondition);
  return failed.length > 0 ? failed.join("; ") : null;
}

/** An errored check held the call: verification was unavailable; otherwise the mismatch needs judgment. */
export function holdKindOf(check: CheckLike): HoldKind {
  return check.status === "error" ? "verification_unavailable" : "needs_judgment";
}

/** The checks that held the call, as the reviewer sees them. */
export function holdReasons(decision: DecisionLike): HoldReason[] {
  return decision.checks
    .filter((c) => c.outcome === "hold")
    .map((c) => ({
      kind: holdKindOf(c),
      argument: c.argument,
      check: c.check,
      source: c.source,
      status: c.status,
      codes: codesOf(c),
      message: detailOf(c),
    }));
}

/** The audit log's view of a check: ids and codes, never argument or row values. */
export function auditCheck(c: CheckLike): Record<string, unknown> {
  return {
    argument: c.argument,
    check: c.check,
    source: c.source,
    status: c.status,
    outcome: c.outcome,
    codes: codesOf(c),
  };
}

/** One line per check that did not allow: `order_id check 0 (billing): mismatch [not_equal]`. */
export function reasonLines(decision: DecisionLike): string[] {
  return decision.checks
    .filter((c) => c.outcome !== "allow")
    .map((c) => {
      const detail = c.error === undefined ? detailOf(c) : null; // source error messages stay with the reviewer
      return `${c.argument} check ${c.check}${c.source ? ` (${c.source})` : ""}: ${c.status} → ${c.outcome} [${codesOf(c).join(", ")}]${detail ? ` ${detail}` : ""}`;
    });
}
