// Argument values an agent can send, for the properties that hold an allowed call to exactly its
// grounded argument: other spellings of a key, scalars of every size, and nested values.
// test/sources/executed-arguments.pbt.test.ts (the SQL adapters) and
// test/gateway/executed-arguments.pbt.test.ts (the gateway) share them.
import fc from "fast-check";
import type { Scalar } from "../../src/core/index.js";

export const INVISIBLE = ["\u200b", "\ufeff", "\u00a0", "\u00ad", "\u200e", "\u2060", "\u0301", "\u3000", "\t", " "];
export const FULLWIDTH = (s: string) => s.replace(/[0-9]/g, (d) => String.fromCharCode(0xff10 + Number(d)));

/** Other spellings of a key: the ones an agent can send to make a database find that row. */
export function spellings(key: number | bigint | string): Scalar[] {
  const text = String(key);
  const out: Scalar[] = [key, text, ` ${text}`, `${text} `, text.toUpperCase(), FULLWIDTH(text)];
  for (const c of INVISIBLE) out.push(`${text}${c}`, `${c}${text}`, `${text.slice(0, 1)}${c}${text.slice(1)}`);
  if (typeof key !== "string") {
    const n = BigInt(key);
    const abs = (n < 0n ? -n : n).toString();
    const sign = n < 0n ? "-" : "";
    out.push(
      `+${text}`,
      `${sign}0${abs}`,
      `${text}.0`,
      `${text}.`,
      `${text}e0`,
      `${sign}${abs}E+0`,
      `0x${n.toString(16)}`,
      Number(n),
      Number(n) + 0.5,
      n + 1n,
      n - 1n,
      Number(n + 1n),
    );
  }
  return out;
}

export const scalar: fc.Arbitrary<Scalar> = fc.oneof(
  fc.integer(),
  fc.maxSafeInteger(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.constantFrom(-0, 2 ** 53, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE, 1e21, 1e-7, true, false, null),
  fc.string({ unit: "grapheme", maxLength: 8 }).filter((s) => !s.includes("\u0000")),
);
/** What an agent may put in an argument: mostly scalars, sometimes a list or an object. */
export const argument: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: scalar },
  { weight: 1, arbitrary: fc.array(scalar, { maxLength: 2 }) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom("a", "value"), scalar, { maxKeys: 2 }) },
);
