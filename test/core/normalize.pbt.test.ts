import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contains, normalize } from "../../src/core/index.js";
import { anyString, rawString, token, tokenText, trickyString, unicodeString } from "./arb.js";

const RUNS = { numRuns: 2000 };

/** A deterministic 1 MB string of arbitrary UTF-16 code units (lone surrogates and NUL included). */
function megabyte(seed: number, alphabet?: readonly string[]): string {
  let x = seed >>> 0;
  const parts: string[] = [];
  for (let i = 0; i < 1 << 20; i++) {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    parts.push(alphabet ? alphabet[x % alphabet.length]! : String.fromCharCode(x >>> 16));
  }
  return parts.join("");
}

describe("normalize", () => {
  it("is idempotent on arbitrary code points", () => {
    fc.assert(
      fc.property(unicodeString, (s) => normalize(normalize(s)) === normalize(s)),
      RUNS,
    );
  });

  it("is idempotent on arbitrary UTF-16 code units, lone surrogates and NUL included", () => {
    fc.assert(
      fc.property(rawString, (s) => normalize(normalize(s)) === normalize(s)),
      RUNS,
    );
  });

  it("is idempotent on strings dense in accents, folds, compatibility forms and separators", () => {
    fc.assert(
      fc.property(trickyString, (s) => normalize(normalize(s)) === normalize(s)),
      RUNS,
    );
  });

  it("yields single spaces between non-empty tokens, never at the ends", () => {
    fc.assert(
      fc.property(anyString, (s) => {
        const n = normalize(s);
        return n === "" || (!n.startsWith(" ") && !n.endsWith(" ") && !n.includes("  "));
      }),
      RUNS,
    );
  });

  it("is idempotent on a 1 MB string of arbitrary code units", () => {
    const s = megabyte(1);
    const n = normalize(s);
    expect(n.length).toBeGreaterThan(0);
    expect(normalize(n)).toBe(n);
  });
});

describe("contains", () => {
  it("is reflexive for every string with a non-empty normalization", () => {
    fc.assert(
      fc.property(anyString, (x) => normalize(x) === "" || contains(x, x)),
      RUNS,
    );
  });

  it("is false for every fragment with an empty normalization", () => {
    fc.assert(
      fc.property(anyString, anyString, (x, t) => normalize(x) !== "" || !contains(x, t)),
      RUNS,
    );
  });

  it("survives appended text", () => {
    fc.assert(
      fc.property(anyString, anyString, (a, b) => normalize(a) === "" || contains(a, `${a} ${b}`)),
      RUNS,
    );
  });

  it("survives prepended text", () => {
    fc.assert(
      fc.property(anyString, anyString, (a, b) => normalize(a) === "" || contains(a, `${b} ${a}`)),
      RUNS,
    );
  });

  it("fails when a token absent from the text is appended to a contained fragment", () => {
    fc.assert(
      fc.property(tokenText, fc.nat(), fc.nat(), token, (text, i, j, extra) => {
        const tokens = normalize(text).split(" ").filter(Boolean);
        const k = normalize(extra);
        fc.pre(tokens.length > 0 && k !== "" && !k.includes(" ") && !tokens.includes(k));
        const start = i % tokens.length;
        const end = start + 1 + (j % (tokens.length - start));
        const fragment = tokens.slice(start, end).join(" ");
        expect(contains(fragment, text)).toBe(true);
        expect(contains(`${fragment} ${extra}`, text)).toBe(false);
        expect(contains(`${extra} ${fragment}`, text)).toBe(false);
      }),
      RUNS,
    );
  });

  it("never throws and always answers a boolean, on any pair of strings", () => {
    fc.assert(
      fc.property(anyString, anyString, (a, b) => typeof contains(a, b) === "boolean"),
      RUNS,
    );
  });

  it("never throws on 1 MB strings and stays token-bounded", () => {
    const words = ["error", "Fehler", "ß", "中文", "500", "1500", "$", " ", "\n", "\u0000", "\ud800", "é"];
    const big = megabyte(7, words);
    const noise = megabyte(9);
    expect(typeof contains(noise, big)).toBe("boolean");
    expect(typeof contains(big, noise)).toBe("boolean");
    expect(contains(big, big)).toBe(true);
    expect(contains("error 1500 zzz-absent", big)).toBe(false);
    const prefix = big.slice(0, big.lastIndexOf(" ", 5000)); // ends on a whole word
    expect(normalize(prefix)).not.toBe("");
    expect(contains(prefix, `${big} tail`)).toBe(true);
    expect(contains(`${prefix}x`, big)).toBe(false); // the same prefix with its last token lengthened
  });
});
