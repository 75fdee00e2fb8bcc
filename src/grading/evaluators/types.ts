/**
 * The evaluator adapter interface: a provider's saved response (or, for `builtin`, the answer and
 * evidence) in; the contract shape `{score, threshold, unsupported_detected}` out, or a reason.
 * @module
 */
import type { EvidenceDocument, GradeReason } from "../types.js";

/** What an adapter may look at besides the raw response. */
export interface AdaptContext {
  readonly answer: string;
  /** The authorized documents, in canonical order. */
  readonly documents: readonly EvidenceDocument[];
  /** The application's threshold, already validated to be in [0, 1]. */
  readonly threshold?: number;
}

/** An adapted result: the contract shape for `decideGrounding`, or why there is none. */
export type Adapted =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly reason: GradeReason };

/** One evaluator at one pinned version. */
export interface EvaluatorAdapter {
  readonly name: string;
  readonly version: string;
  /** Turn the raw response into the contract shape. `raw` is the result actually evaluated (computed for `builtin`). */
  evaluate(raw: unknown, ctx: AdaptContext): { readonly adapted: Adapted; readonly raw: unknown };
  /** The raw result with everything but the fields the adapter reads removed: no text, no secrets. */
  sanitize(raw: unknown): unknown;
}

/** A number in [0, 1] (NaN is not). */
export const isUnit = (v: unknown): v is number => typeof v === "number" && v >= 0 && v <= 1;

/** The stricter of a provider's threshold and the application's; an invalid provider threshold is kept for validation to reject. */
export function stricter(provider: unknown, app: number | undefined): unknown {
  if (app === undefined || !isUnit(provider)) return provider;
  return Math.max(provider, app);
}

/** An own property, or undefined. */
export function own(obj: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(obj, key) ? obj[key] : undefined;
}

/** A value kept in a sanitized record: numbers, booleans and null as they are, anything else replaced by its type. */
export function scalarOnly(v: unknown): unknown {
  if (v === undefined) return undefined;
  if (v === null || typeof v === "number" || typeof v === "boolean")
    return Number.isFinite(v) || typeof v !== "number" ? v : String(v);
  return `<${Array.isArray(v) ? "array" : typeof v}>`;
}

/** A string kept only when it is one of the allowed values. */
export function enumOnly(v: unknown, allowed: readonly string[]): unknown {
  return typeof v === "string" && allowed.includes(v) ? v : scalarOnly(v);
}

/** A decimal `m × 10^e`. */
export interface Decimal {
  readonly m: bigint;
  readonly e: number;
}

/** A finite non-negative number as the shortest decimal that reads back as it (`0.41`, `4e-13`). */
export function decimalOf(x: number): Decimal {
  const [mantissa, exponent] = String(x).split("e") as [string, string | undefined];
  const [whole, fraction = ""] = mantissa.split(".") as [string, string | undefined];
  return { m: BigInt(whole + fraction), e: Number(exponent ?? 0) - fraction.length };
}

/** `a >= b`, exactly. */
export function atLeast(a: Decimal, b: Decimal): boolean {
  const e = Math.min(a.e, b.e);
  return a.m * 10n ** BigInt(a.e - e) >= b.m * 10n ** BigInt(b.e - e);
}

const bits = new BigUint64Array(1);
const float = new Float64Array(bits.buffer);

/** The largest double below a positive `x`. */
export function nextDown(x: number): number {
  float[0] = x;
  bits[0]! -= 1n;
  return float[0]!;
}
