/**
 * The pure steps of a check: rows and bindings to a result, a result to an outcome, and both to the
 * report the Decision carries. No I/O; the retry loop (attempt.ts) calls these.
 * @module
 */
import {
  type Bindings,
  type ConditionResult,
  evaluateConditions,
  type Outcome,
  resolveBinding,
  type Scalar,
} from "../../core/index.js";
import { TesseraError } from "../../platform/errors.js";
import type { CheckErrorCode, CheckReport, CheckStatus, ConditionReport } from "../decision.js";
import type { CheckPolicy } from "../policy.js";
import { SourceError, type SourceResult } from "../source.js";
import type { InvalidArguments } from "./call-bindings.js";
import type { CompiledCheck } from "./compile.js";

/** What one check came to, before it is reported. */
export interface Attempted {
  status: CheckStatus;
  attempts: number;
  rows: number | null;
  conditions: readonly ConditionResult[];
  error?: { code: CheckErrorCode; message: string };
}

/** A check that failed before or instead of a Source answer. */
export function failed(attempts: number, code: CheckErrorCode, message: string): Attempted {
  return { status: "error", attempts, rows: null, conditions: [], error: { code, message } };
}

/** A thrown adapter error as a check error: its own code when it has one. */
export function errorOf(err: unknown, kind: string): { code: CheckErrorCode; message: string } {
  if (err instanceof SourceError) return { code: err.code, message: err.message };
  if (err instanceof TesseraError) return { code: "source_invalid_query", message: err.message };
  const name = err instanceof Error ? err.name : typeof err;
  return { code: "source_server_error", message: `unexpected ${name} from the \`${kind}\` adapter` };
}

/** Why the request cannot be bound: a refused argument it reads, or null. */
export function invalidBinding(
  cc: CompiledCheck,
  parameters: readonly string[],
  invalid: InvalidArguments,
): string | null {
  if (invalid.size === 0) return null;
  for (const p of parameters) {
    const why = invalid.get(p);
    if (why !== undefined) return why;
  }
  for (const p of cc.argNames) {
    const why = invalid.get(p);
    if (why !== undefined) return why;
  }
  return null;
}

/** Which binding the request or its conditions lack, named by where it would come from; or null. */
export function missingBinding(
  cc: CompiledCheck,
  parameters: readonly string[],
  b: Bindings,
  contextNames: ReadonlySet<string>,
): string | null {
  const lacks = (n: string) =>
    contextNames.has(n)
      ? `trusted context field \`${n}\`, which the context lacks`
      : `argument \`${n}\`, which the call lacks`;
  for (const p of parameters) if (!resolveBinding(p, b).found) return `placeholder \`${p}\` binds ${lacks(p)}`;
  for (const n of cc.ctxNames) {
    if (!Object.hasOwn(b.context, n)) return `condition needs trusted context field \`${n}\``;
  }
  for (const n of cc.argNames) if (!resolveBinding(n, b).found) return `condition \`arg: ${n}\` binds ${lacks(n)}`;
  return null;
}

/** The request's parameters, each bound (the caller checked none is missing). */
export function parametersOf(parameters: readonly string[], b: Bindings): Record<string, Scalar> {
  const params: Record<string, Scalar> = {};
  for (const p of parameters) params[p] = (resolveBinding(p, b) as { value: Scalar }).value;
  return params;
}

/** The check's conditions over a Source's answer; a column the answer lacks is an error, not a mismatch. */
export function evaluate(cc: CompiledCheck, result: SourceResult, b: Bindings): Attempted {
  const rows = result.rows;
  const match = evaluateConditions(rows, cc.policy.match, b);
  let conditions = match.conditions;
  let status: CheckStatus = match.status;
  const known = result.columns;
  if (known !== undefined && status !== "error" && cc.columns.some((c) => !known.includes(c))) {
    conditions = conditions.map((r) =>
      "column" in r.condition && !known.includes(r.condition.column)
        ? { condition: r.condition, ok: false, code: "column_missing" }
        : r,
    );
    status = "error";
  }
  if (status !== "error") return { status, attempts: 0, rows: rows.length, conditions };
  const bad = conditions.find((r) => r.code === "column_missing");
  const column = bad !== undefined && "column" in bad.condition ? bad.condition.column : "?";
  return {
    status,
    attempts: 0,
    rows: rows.length,
    conditions,
    error: {
      code: "column_missing",
      message: `column \`${column}\` is not in the result of source \`${cc.policy.source}\``,
    },
  };
}

const UNBINDABLE: ReadonlySet<string> = new Set(["argument_invalid", "binding_missing"]);

/**
 * The outcome a check contributes. A value that cannot be bound is not an outage: it blocks whatever
 * `on_error` says.
 */
export function outcomeOf(a: Attempted, check: CheckPolicy): Outcome {
  if (a.status === "matched") return "allow";
  if (a.status === "mismatch") return check.on_fail;
  return a.error !== undefined && UNBINDABLE.has(a.error.code) ? "block" : check.retry.on_error;
}

/** A condition's result as reported: the condition's own keys, then `ok`, `code`, and values when explained. */
function conditionReport(r: ConditionResult, explain: boolean): ConditionReport {
  // a key-by-key copy: spreading a parsed policy condition takes V8's slow path
  const out: Record<string, unknown> = {};
  const condition = r.condition as unknown as Readonly<Record<string, unknown>>;
  for (const key in condition) out[key] = condition[key];
  out.ok = r.ok;
  if (r.code !== undefined) out.code = r.code;
  if (explain) {
    if (r.expected !== undefined) out.expected = r.expected;
    if (r.actual !== undefined) out.actual = r.actual;
  }
  return out as ConditionReport;
}

/** The check as the Decision reports it, in the contract's key order. */
export function report(
  cc: CompiledCheck,
  a: Attempted,
  outcome: Outcome,
  explain: boolean,
  value: Scalar | undefined,
): CheckReport {
  const r: Record<string, unknown> = {
    argument: cc.argument,
    check: cc.index,
    source: cc.policy.source,
    status: a.status,
    outcome,
    attempts: a.attempts,
    rows: a.rows,
    conditions: a.conditions.map((c) => conditionReport(c, explain)),
  };
  if (a.error !== undefined) r.error = a.error;
  if (explain && value !== undefined) r.value = value;
  return r as unknown as CheckReport;
}
