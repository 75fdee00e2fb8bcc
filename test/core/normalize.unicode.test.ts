// Exhaustive checks over every code point: normalize agrees with the literal specs/normalization.md pipeline
// on each one, and the Unicode facts normalize's single-pass implementation relies on hold for the
// running Node's ICU data (see the INVARIANT in src/core/normalize.ts).
import { describe, expect, it } from "vitest";
import { normalize } from "../../src/core/index.js";
import { referenceNormalize } from "./reference.js";

const MARK = /^\p{M}$/u;

function* codePoints(): Generator<string> {
  for (let cp = 0; cp <= 0x10ffff; cp++) yield String.fromCodePoint(cp); // surrogates come out lone
}

describe("normalize over every code point", () => {
  it("agrees with the literal pipeline on each assigned code point, alone, between letters, after a capital sigma and next to signs and operators", () => {
    const wrong: string[] = [];
    const unassignedOrPrivate = /^[\p{Cn}\p{Co}]$/u; // all alike to both: separators that never decompose
    for (const c of codePoints()) {
      if (unassignedOrPrivate.test(c)) continue;
      if (normalize(c) !== referenceNormalize(c)) wrong.push(c);
      const framed = `Ab${c}cD`;
      if (normalize(framed) !== referenceNormalize(framed)) wrong.push(framed);
      const sigma = `ΑΣ${c}Β`; // the one context-dependent lower case: is the sigma final?
      if (normalize(sigma) !== referenceNormalize(sigma)) wrong.push(sigma);
      // before a sign, between a sign and its digit, between `!` and `=`, after `=` and before `<`
      const signs = `${c}-5 -${c}5 !${c}=${c}<`;
      if (normalize(signs) !== referenceNormalize(signs)) wrong.push(signs);
    }
    expect(wrong.map((w) => [...w].map((x) => x.codePointAt(0)!.toString(16)).join(" "))).toStrictEqual([]);
  });

  it("lower-casing an NFKD-stable code point gives one code point, never adds or removes a mark, never decomposes", () => {
    const wrong: number[] = [];
    for (const c of codePoints()) {
      if (c.normalize("NFKD") !== c) continue;
      const l = c.toLowerCase();
      const lcps = [...l];
      if (lcps.length !== 1 || MARK.test(l) !== MARK.test(c) || l.normalize("NFKD") !== l)
        wrong.push(c.codePointAt(0)!);
    }
    expect(wrong).toStrictEqual([]);
  });

  it("only marks have a non-zero combining class, so dropping marks makes NFKD's reordering irrelevant", () => {
    const wrong: number[] = [];
    for (const c of codePoints()) {
      if (MARK.test(c) || c.normalize("NFD") !== c) continue;
      const before = `\u0301${c}`; // combining class 230 before c: reordered iff 0 < ccc(c) < 230
      const after = `${c}\u0316`; // combining class 220 after c: reordered iff ccc(c) > 220
      if (before.normalize("NFD") !== before || after.normalize("NFD") !== after) wrong.push(c.codePointAt(0)!);
    }
    expect(wrong).toStrictEqual([]);
  });
});
