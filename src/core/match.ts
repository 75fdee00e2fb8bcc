/**
 * Match conditions over a Source's rows (specs/match-semantics.md).
 * @module
 */
import { compareScalars, isScalar, type Scalar, scalarEquals } from "./scalar.js";

/** Comparison operators of a column condition. */
export type CompareOp = "eq" | "ne" | "gt" | "gte" | "lt" | "lte";
/** Every operator a column condition may use. */
export type ColumnOp = CompareOp | "in" | "not_in";
/** Null tests, which take no operand. */
export type NullOp = "is_null" | "not_null";

/** `{column, ctx}`: the column against a trusted-context field. */
export interface CtxCondition {
  readonly column: string;
  readonly op?: CompareOp;
  readonly ctx: string;
}
/** `{column, arg}`: the column against another bound argument (trusted context of that name wins). */
export interface ArgCondition {
  readonly column: string;
  readonly op?: CompareOp;
  readonly arg: string;
}
/** `{column, value}`: the column against a literal (a list for `in` / `not_in`). */
export interface ValueCondition {
  readonly column: string;
  readonly op?: ColumnOp;
  readonly value: Scalar | readonly Scalar[];
}
/** `{column, op: is_null | not_null}`. */
export interface NullCondition {
  readonly column: string;
  readonly op: NullOp;
}
/** `{rows: op, value: n}`: the number of rows compared with `n`. */
export interface RowsCondition {
  readonly rows: CompareOp;
  readonly value: number;
}

/** One match condition. */
export type Condition = CtxCondition | ArgCondition | ValueCondition | NullCondition | RowsCondition;

/** A row as returned by a Source: column name to value. */
export type Row = Readonly<Record<string, unknown>>;

/**
 * What a check can bind. `value` is the argument being grounded; `arguments` are the call's scalar
 * arguments; `context` is the host's trusted context, which wins over an argument of the same name.
 */
export interface Bindings {
  /** The argument being grounded. */
  readonly value: Scalar;
  /** The proposed call's scalar arguments (agent-controlled). */
  readonly arguments: Readonly<Record<string, Scalar>>;
  /** The host's trusted context (never from the agent's arguments). */
  readonly context: Readonly<Record<string, Scalar>>;
}

/** Stable codes for a failing condition. */
export type ConditionCode =
  | "not_equal"
  | "equal"
  | "not_greater"
  | "not_greater_or_equal"
  | "not_less"
  | "not_less_or_equal"
  | "not_in_list"
  | "in_list"
  | "not_null"
  | "is_null"
  | "not_comparable"
  | "not_scalar"
  | "no_rows"
  | "row_count"
  | "column_missing"
  | "binding_missing";

/** Codes that make the check an `error` rather than a `mismatch`. */
export const ERROR_CODES: ReadonlySet<ConditionCode> = new Set(["column_missing", "binding_missing"]);

/** The result of one condition; `expected`/`actual` are for explanations and never in audit records. */
export interface ConditionResult {
  /** The condition, as given. */
  readonly condition: Condition;
  /** Whether it held (for every row). */
  readonly ok: boolean;
  /** Why it failed; absent when it held. */
  readonly code?: ConditionCode;
  /** The value compared against (a bound or literal value, or the row-count bound). */
  readonly expected?: unknown;
  /** The first offending column value, or the row count. */
  readonly actual?: unknown;
}

/** All conditions' results and the check status they imply. */
export interface MatchResult {
  /** `error` if any condition has an error code, else `mismatch` if any failed, else `matched`. */
  readonly status: "matched" | "mismatch" | "error";
  /** One result per condition, in condition order. */
  readonly conditions: readonly ConditionResult[];
}

/** Resolve a name through the bindings: `value` is reserved; trusted context wins over arguments. */
export function resolveBinding(name: string, b: Bindings): { found: true; value: Scalar } | { found: false } {
  if (name === "value") return { found: true, value: b.value };
  if (Object.hasOwn(b.context, name)) return { found: true, value: b.context[name]! };
  if (Object.hasOwn(b.arguments, name)) return { found: true, value: b.arguments[name]! };
  return { found: false };
}

const COMPARE_FAIL: Readonly<Record<CompareOp, ConditionCode>> = {
  eq: "not_equal",
  ne: "equal",
  gt: "not_greater",
  gte: "not_greater_or_equal",
  lt: "not_less",
  lte: "not_less_or_equal",
};

/** Compare two scalars under `op`; null when ordering is asked of values that cannot be ordered. */
export function compareWith(op: CompareOp, actual: Scalar, expected: Scalar): boolean | null {
  if (op === "eq") return scalarEquals(actual, expected);
  if (op === "ne") return !scalarEquals(actual, expected);
  const c = compareScalars(actual, expected);
  if (c === null) return null;
  switch (op) {
    case "gt":
      return c > 0;
    case "gte":
      return c >= 0;
    case "lt":
      return c < 0;
    case "lte":
      return c <= 0;
  }
}

/** `in`: the value equals some list member; `not_in` is its exact complement. */
export function inList(actual: Scalar, list: readonly Scalar[]): boolean {
  return list.some((x) => scalarEquals(actual, x));
}

function countCompare(op: CompareOp, n: number, bound: number): boolean {
  return compareWith(op, n, bound) === true;
}

function fail(condition: Condition, code: ConditionCode, expected?: unknown, actual?: unknown): ConditionResult {
  const r: { condition: Condition; ok: false; code: ConditionCode; expected?: unknown; actual?: unknown } = {
    condition,
    ok: false,
    code,
  };
  if (expected !== undefined) r.expected = expected;
  if (actual !== undefined) r.actual = actual;
  return r;
}

function evaluateOne(rows: readonly Row[], condition: Condition, bindings: Bindings): ConditionResult {
  if ("rows" in condition) {
    return countCompare(condition.rows, rows.length, condition.value)
      ? { condition, ok: true, expected: condition.value, actual: rows.length }
      : fail(condition, "row_count", condition.value, rows.length);
  }
  const { column } = condition;
  for (const row of rows) if (!Object.hasOwn(row, column)) return fail(condition, "column_missing");

  let expected: Scalar | readonly Scalar[] | undefined;
  if ("ctx" in condition) {
    if (!Object.hasOwn(bindings.context, condition.ctx)) return fail(condition, "binding_missing");
    expected = bindings.context[condition.ctx]!;
  } else if ("arg" in condition) {
    const r = resolveBinding(condition.arg, bindings);
    if (!r.found) return fail(condition, "binding_missing");
    expected = r.value;
  } else if ("value" in condition) {
    expected = condition.value;
  }
  if (rows.length === 0) return fail(condition, "no_rows", expected, 0);

  const op = condition.op ?? "eq";
  for (const row of rows) {
    const cell = row[column];
    if (!isScalar(cell)) return fail(condition, "not_scalar", expected, undefined);
    let ok: boolean | null;
    let code: ConditionCode;
    if (op === "is_null" || op === "not_null") {
      ok = op === "is_null" ? cell === null : cell !== null;
      code = op === "is_null" ? "not_null" : "is_null";
    } else if (op === "in" || op === "not_in") {
      const list = Array.isArray(expected) ? (expected as readonly Scalar[]) : [expected as Scalar];
      const member = inList(cell, list);
      ok = op === "in" ? member : !member;
      code = op === "in" ? "not_in_list" : "in_list";
    } else {
      ok = compareWith(op, cell, expected as Scalar);
      code = ok === null ? "not_comparable" : COMPARE_FAIL[op];
    }
    if (ok !== true) return fail(condition, code, expected, cell);
  }
  return expected === undefined ? { condition, ok: true } : { condition, ok: true, expected };
}

/**
 * Evaluate every condition against the rows. Column conditions must hold for every row and fail
 * with `no_rows` on none; a missing column or binding makes the whole check an `error`.
 * @example
 * evaluateConditions([{ status: "delivered" }], [{ column: "status", value: "delivered" }], bindings)
 *   .status // "matched"
 */
export function evaluateConditions(
  rows: readonly Row[],
  conditions: readonly Condition[],
  bindings: Bindings,
): MatchResult {
  const results = conditions.map((c) => evaluateOne(rows, c, bindings));
  const status = results.some((r) => r.code !== undefined && ERROR_CODES.has(r.code))
    ? "error"
    : results.every((r) => r.ok)
      ? "matched"
      : "mismatch";
  return { status, conditions: results };
}
