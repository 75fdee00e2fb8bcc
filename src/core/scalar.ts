/**
 * Scalars and their equality and ordering rules (specs/match-semantics.md).
 * @module
 */

/** A bindable value: string, number, bigint, boolean or null. */
export type Scalar = string | number | bigint | boolean | null;

/** True for the five scalar kinds; `undefined`, objects and arrays are not scalars. */
export function isScalar(v: unknown): v is Scalar {
  return (
    v === null || typeof v === "string" || typeof v === "number" || typeof v === "bigint" || typeof v === "boolean"
  );
}

type Numeric = number | bigint;
const isNumeric = (v: unknown): v is Numeric => typeof v === "number" || typeof v === "bigint";

function booleanEquals(b: boolean, other: Scalar): boolean {
  if (typeof other === "boolean") return b === other;
  // biome-ignore lint/suspicious/noDoubleEquals: number and bigint compare exactly only with ==
  if (isNumeric(other)) return other == (b ? 1 : 0);
  if (typeof other === "string") return other === (b ? "true" : "false");
  return false;
}

/**
 * Scalar equality: null equals only null; numbers compare numerically; a number and a string
 * compare as `String(number) === string`; booleans equal 1/0 and "true"/"false"; strings exactly.
 * Symmetric by construction.
 */
export function scalarEquals(a: Scalar, b: Scalar): boolean {
  if (a === null || b === null) return a === b;
  if (typeof a === "boolean") return booleanEquals(a, b);
  if (typeof b === "boolean") return booleanEquals(b, a);
  // biome-ignore lint/suspicious/noDoubleEquals: number and bigint compare exactly only with ==
  if (isNumeric(a) && isNumeric(b)) return a == b;
  if (isNumeric(a)) return String(a) === b;
  if (isNumeric(b)) return String(b) === a;
  return a === b;
}

const STRICT_DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/** The value as a strict decimal string, or null when it cannot be ordered. */
function asDecimal(v: Scalar): string | null {
  if (typeof v === "bigint") return v.toString();
  if (typeof v === "number") {
    if (!Number.isFinite(v)) return null;
    const s = Object.is(v, -0) ? "0" : String(v);
    return STRICT_DECIMAL.test(s) ? s : expandExponent(v);
  }
  if (typeof v === "string") return STRICT_DECIMAL.test(v) ? v : null;
  return null;
}

// numbers such as 1e21 or 1e-7 print with an exponent; write them out in full
function expandExponent(v: number): string | null {
  const m = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(v.toExponential());
  if (m === null) return null;
  const [, sign, lead, frac = "", expText] = m;
  const digits = lead! + frac;
  const exp = Number(expText);
  let intPart: string;
  let fracPart: string;
  if (exp >= 0) {
    intPart = (digits + "0".repeat(Math.max(0, exp + 1 - digits.length))).slice(0, exp + 1);
    fracPart = digits.slice(exp + 1);
  } else {
    intPart = "0";
    fracPart = "0".repeat(-exp - 1) + digits;
  }
  fracPart = fracPart.replace(/0+$/, "");
  return `${sign}${intPart}${fracPart ? `.${fracPart}` : ""}`;
}

function compareUnsigned(a: string, b: string): number {
  const [ai, af = ""] = a.split(".") as [string, string?];
  const [bi, bf = ""] = b.split(".") as [string, string?];
  if (ai.length !== bi.length) return ai.length < bi.length ? -1 : 1;
  if (ai !== bi) return ai < bi ? -1 : 1;
  const width = Math.max(af.length, bf.length);
  const ap = af.padEnd(width, "0");
  const bp = bf.padEnd(width, "0");
  return ap === bp ? 0 : ap < bp ? -1 : 1;
}

/**
 * Exact ordering of numbers and strict decimal strings (`-12.50`, `7`): -1, 0 or 1, or null when
 * either side is not comparable (booleans, null, other strings, non-finite numbers).
 */
export function compareScalars(a: Scalar, b: Scalar): -1 | 0 | 1 | null {
  if (typeof a === "number" && typeof b === "number") {
    if (!Number.isFinite(a) || !Number.isFinite(b)) return null;
    return a === b ? 0 : a < b ? -1 : 1;
  }
  const x = asDecimal(a);
  const y = asDecimal(b);
  if (x === null || y === null) return null;
  const xNeg = x.startsWith("-") && !/^-0(\.0+)?$/.test(x);
  const yNeg = y.startsWith("-") && !/^-0(\.0+)?$/.test(y);
  if (xNeg !== yNeg) return xNeg ? -1 : 1;
  const c = compareUnsigned(x.replace(/^-/, ""), y.replace(/^-/, ""));
  const signed = xNeg ? -c : c;
  return signed === 0 ? 0 : signed < 0 ? -1 : 1;
}
