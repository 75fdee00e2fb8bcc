/**
 * The values one call can bind, and why others cannot (adr/0046, adr/0047): the trusted context
 * fields the policy names, the listed arguments of the tool, and the arguments refused because
 * readers could disagree on them.
 * @module
 */
import { isScalar, type Scalar } from "../../core/index.js";
import { numberProblem, numericStringProblem } from "../../core/numbers.js";
import { TesseraError } from "../../platform/errors.js";
import { printable } from "../../platform/printable.js";
import { foldedName } from "../bindings.js";
import type { CompiledTool } from "./compile.js";

/** Listed arguments that cannot be bound, each with the reason a check reports. */
export type InvalidArguments = ReadonlyMap<string, string>;

function describeValue(v: unknown): string {
  return v === undefined ? "absent" : Array.isArray(v) ? "a list, not a scalar" : "an object, not a scalar";
}

/** Why an agent's value cannot be bound exactly, or null. */
function valueProblem(v: Scalar, asText: boolean): string | null {
  if (typeof v === "number") return numberProblem(v)?.message ?? null;
  if (typeof v === "string" && !asText) return numericStringProblem(v)?.message ?? null;
  return null;
}

/**
 * The trusted context fields `names`, as present in `context`; one present but not a bindable scalar
 * is the host's error (`context_invalid`), never skipped.
 */
export function contextBindings(
  names: readonly string[],
  context: Readonly<Record<string, unknown>>,
): Record<string, Scalar> {
  const out: Record<string, Scalar> = {};
  for (const name of names) {
    if (!Object.hasOwn(context, name)) continue;
    const v = context[name];
    if (!isScalar(v)) {
      throw new TesseraError("context_invalid", `trusted context field \`${name}\` is ${describeValue(v)}`);
    }
    const problem = typeof v === "number" ? numberProblem(v) : null;
    if (problem !== null) {
      throw new TesseraError("context_invalid", `trusted context field \`${name}\`: ${problem.message}`);
    }
    out[name] = v;
  }
  return out;
}

/**
 * The call's listed arguments that bind by name, and why others cannot: a value no two readers
 * agree on, or a key that shadows a listed argument (`ORDER_ID` beside `order_id`).
 */
export function argumentBindings(
  tool: CompiledTool,
  given: Readonly<Record<string, unknown>>,
): { args: Record<string, Scalar>; invalid: InvalidArguments } {
  const args: Record<string, Scalar> = {};
  const invalid = new Map<string, string>();
  for (const key of Object.keys(given)) {
    const listed = tool.folded.get(foldedName(key));
    if (listed !== undefined && listed !== key) {
      invalid.set(
        listed,
        `argument \`${printable(key)}\` shadows \`${listed}\`; a reader that folds case or drops invisible characters could take either`,
      );
    }
  }
  for (const arg of tool.arguments) {
    const { name } = arg;
    if (!tool.bindable.has(name) || !Object.hasOwn(given, name) || invalid.has(name)) continue;
    const v = given[name];
    if (!isScalar(v)) continue;
    const problem = valueProblem(v, arg.asText);
    if (problem !== null) invalid.set(name, `argument \`${name}\`: ${problem}`);
    else args[name] = v;
  }
  return { args, invalid };
}

/** A protected argument's value, or why it cannot be grounded: absent, not a scalar, shadowed, inexact. */
export function groundedValue(
  name: string,
  given: Readonly<Record<string, unknown>>,
  asText: boolean,
  invalid: InvalidArguments,
): { value: Scalar } | string {
  const shadowed = invalid.get(name);
  if (shadowed !== undefined) return shadowed;
  const raw = Object.hasOwn(given, name) ? given[name] : undefined;
  if (raw === undefined || !isScalar(raw)) return `argument \`${name}\` is ${describeValue(raw)}`;
  const problem = valueProblem(raw, asText);
  return problem === null ? { value: raw } : `argument \`${name}\`: ${problem}`;
}
