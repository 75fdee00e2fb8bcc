// Differential tests: the core's normalize and contains against the naive reference models in
// reference.ts (the literal steps of specs/normalization.md; token arrays searched for a contiguous run).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contains, containsNormalized, normalize } from "../../src/core/index.js";
import { anyString, operatorString, tokenText } from "./arb.js";
import { referenceContains, referenceNormalize } from "./reference.js";

const RUNS = { numRuns: 3000 };

describe("normalize against the literal pipeline of specs/normalization.md", () => {
  it("agrees on any string", () => {
    fc.assert(
      fc.property(anyString, (s) => normalize(s) === referenceNormalize(s)),
      RUNS,
    );
  });

  it("agrees on Greek with marks, where lower case depends on context (final sigma)", () => {
    const greek = fc.string({
      unit: fc.constantFrom("Α", "Σ", "σ", "ς", "Β", "\u0903", "\u0301", "\u0345", ".", " ", "'", "Ϲ"),
      maxLength: 12,
    });
    fc.assert(
      fc.property(greek, (s) => normalize(s) === referenceNormalize(s)),
      RUNS,
    );
  });

  it("agrees where dropping a mark pairs a lone high and a lone low surrogate (found by the property above)", () => {
    for (const s of ["\ud800\ua8b4\udc00", "a \ud83d\u0301\ude00 b", "\ud800\u0301", "\udc00\u0301\ud800"])
      expect(normalize(s)).toBe(referenceNormalize(s));
    expect(normalize("\ud800\ua8b4\udc00")).toBe("\u{10000}");
  });

  it("agrees on strings dense in signs, operators, struck-through comparisons and super/subscripts", () => {
    fc.assert(
      fc.property(operatorString, (s) => normalize(s) === referenceNormalize(s)),
      RUNS,
    );
  });

  it("agrees on printable ASCII (the fast path)", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary-ascii", maxLength: 200 }), (s) => normalize(s) === referenceNormalize(s)),
      RUNS,
    );
  });
});

describe("contains against a token-array reference", () => {
  it("agrees on arbitrary strings", () => {
    fc.assert(
      fc.property(anyString, anyString, (f, t) => contains(f, t) === referenceContains(f, t)),
      RUNS,
    );
  });

  it("agrees on token texts, where containment is often true", () => {
    fc.assert(
      fc.property(tokenText, tokenText, (f, t) => contains(f, t) === referenceContains(f, t)),
      RUNS,
    );
  });

  it("agrees on fragments cut from the text at arbitrary offsets", () => {
    fc.assert(
      fc.property(tokenText, fc.nat(), fc.nat(), (t, i, j) => {
        const a = t.length === 0 ? 0 : i % t.length;
        const f = t.slice(a, a + (j % 20));
        return contains(f, t) === referenceContains(f, t);
      }),
      RUNS,
    );
  });

  it("containsNormalized agrees on pre-normalized input", () => {
    fc.assert(
      fc.property(
        tokenText,
        tokenText,
        (f, t) => containsNormalized(normalize(f), normalize(t)) === referenceContains(f, t),
      ),
      RUNS,
    );
  });

  it("agrees on pairs dense in signs and operators", () => {
    fc.assert(
      fc.property(operatorString, operatorString, (f, t) => contains(f, t) === referenceContains(f, t)),
      RUNS,
    );
  });

  it("agrees on the token-boundary examples of specs/normalization.md", () => {
    for (const [f, t] of [
      ["up to $5", "up to $50"],
      ["500", "1500"],
      ["up to $50", "claim up to $50."],
      ["1 5", "1 500 15"],
      ["dropped to 40 degrees and stayed > 30", "dropped to -40 degrees and stayed < 30"],
      ["106", "10⁶"],
    ] as const) {
      expect(contains(f, t)).toBe(referenceContains(f, t));
    }
  });
});
