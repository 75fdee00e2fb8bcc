/**
 * Numbers an agent can spell more than one way (specs/match-semantics.md, "Numbers that ground
 * exactly"). A grounded value must be the value that executes under any reasonable parser, so a
 * number is bound only when every reader agrees on it: a JSON number literal names exactly the
 * double it parses to, a whole number lies within ±(2^53 − 1), and a string that looks like a
 * number is spelled the one way JavaScript prints that number.
 * @module
 */

/** Why a value cannot be bound exactly; stable snake_case codes. */
export type NumberProblemCode = "number_unsafe" | "number_inexact" | "number_spelling";

/** A value that different readers could take for different numbers. */
export interface NumberProblem {
  readonly code: NumberProblemCode;
  readonly message: string;
}

const STRICT_DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

// after NFKC and with whitespace, invisible format characters and digit-group marks removed, what
// SQL casts, JavaScript's Number, Python's int/float or a decimal library would read as a number
const LENIENT_DECIMAL = /^[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:e[+-]?[0-9]+)?$/i;
const LENIENT_RADIX = /^[+-]?0(?:x[0-9a-f]+|o[0-7]+|b[01]+)$/i;
const IGNORED = /[\s\p{Cc}\p{Cf}\p{Z}_]/gu;
// a decimal digit of another script (Arabic-Indic, Devanagari, …), which NFKC leaves as it is
const OTHER_DIGIT = /(?![0-9])\p{Nd}/gu;

function clip(s: string): string {
  const shown = s.length > 40 ? `${s.slice(0, 37)}...` : s;
  return JSON.stringify(shown).slice(1, -1);
}

/**
 * Whether `n` can be bound as it is: finite, and within ±(2^53 − 1) when whole. A larger whole number
 * may already be a rounded neighbour of what the agent wrote (`9007199254740993` reads as `…992`).
 */
export function numberProblem(n: number): NumberProblem | null {
  if (!Number.isFinite(n)) return { code: "number_unsafe", message: `number \`${String(n)}\` is not finite` };
  if (Number.isInteger(n) && !Number.isSafeInteger(n)) {
    return {
      code: "number_unsafe",
      message: `number \`${String(n)}\` is beyond ±(2^53 − 1), where whole numbers are rounded; send it as a string`,
    };
  }
  return null;
}

/**
 * True when a string would be read as a number by some reasonable parser. Every character is looked
 * at, however long the string (zero padding cannot be trimmed away), and a decimal digit of any
 * script counts: Python's `int` and Java's `parseInt` read `١٠٠٩` as 1009.
 */
export function looksNumeric(s: string): boolean {
  const bare = s.normalize("NFKC").replace(IGNORED, "").replace(OTHER_DIGIT, "0");
  return bare !== "" && (LENIENT_DECIMAL.test(bare) || LENIENT_RADIX.test(bare));
}

/**
 * Whether a string argument can be bound as it is. A string that looks like a number must be spelled
 * exactly as JavaScript prints that number (`1001`, `-12.5`, `0.1`): `01001`, `+1001`, `1001.`,
 * `1.001e3`, `\t1001` and `1001` padded with blanks are refused, since a SQL cast, `parseInt` or a
 * decimal parser can each read them as a different number than the one grounded.
 */
export function numericStringProblem(s: string): NumberProblem | null {
  if (!looksNumeric(s)) return null;
  if (canonicalNumber(s) !== null) return null;
  return {
    code: "number_spelling",
    message: `\`${clip(s)}\` looks like a number but is not spelled the one way it prints (\`${canonicalHint(s)}\`)`,
  };
}

/**
 * The number a string spells in its one canonical form (`"1009"`, `"-12.5"`), or null: every string
 * a check may bind that a reader would take for a number is one of these (the rest are refused).
 */
export function canonicalNumber(s: string): number | null {
  if (!STRICT_DECIMAL.test(s)) return null;
  const n = Number(s);
  return String(n) === s && numberProblem(n) === null ? n : null;
}

// the value of a decimal digit of any script: its distance from that script's zero, the first of the run
function asciiDigit(d: string): string {
  let cp = d.codePointAt(0) ?? 0;
  let value = 0;
  while (value < 9 && /\p{Nd}/u.test(String.fromCodePoint(cp - 1))) {
    cp--;
    value++;
  }
  return String(value);
}

function canonicalHint(s: string): string {
  const n = Number(s.normalize("NFKC").replace(IGNORED, "").replace(OTHER_DIGIT, asciiDigit));
  return Number.isFinite(n) ? String(n) : "a plain decimal";
}

/** Sign, significant digits and the decimal exponent of the last digit: `-1.50e2` → `["-", "15", 1]`. */
function decimalParts(literal: string): [string, string, number] {
  const m = /^(-?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/.exec(literal);
  if (m === null) return ["", literal, 0];
  const [, sign = "", int = "", frac = "", exp = "0"] = m;
  let digits = int + frac;
  let e = Number(exp) - frac.length;
  const lead = digits.search(/[^0]/);
  if (lead === -1) return ["", "", 0]; // zero, whatever its sign
  digits = digits.slice(lead);
  const trail = digits.length - digits.replace(/0+$/, "").length;
  digits = digits.slice(0, digits.length - trail);
  e += trail;
  return [sign, digits, e];
}

/**
 * Whether a JSON number literal names exactly the double it parses to, and a whole one is safe:
 * `1.0`, `1e3` and `0.1` do (each is the double JavaScript prints back); `9007199254740993`,
 * `0.1000000000000000000001` and `1e400` do not.
 */
export function numberLiteralProblem(
  literal: string,
): (NumberProblem & { readonly code: "number_unsafe" | "number_inexact" }) | null {
  const n = Number(literal);
  if (!Number.isFinite(n))
    return { code: "number_unsafe", message: `number \`${clip(literal)}\` is too large for a double` };
  if (numberProblem(n) !== null) {
    return {
      code: "number_unsafe",
      message: `number \`${clip(literal)}\` is beyond ±(2^53 − 1), where whole numbers are rounded; send it as a string`,
    };
  }
  if (literal.length <= 15 && !/[.eE]/.test(literal)) return null; // a short whole number is always exact
  const a = decimalParts(literal);
  const b = decimalParts(String(n));
  if (a[0] === b[0] && a[1] === b[1] && a[2] === b[2]) return null;
  return {
    code: "number_inexact",
    message: `number \`${clip(literal)}\` has more digits than a double keeps (it reads as \`${String(n)}\`); send it as a string`,
  };
}
