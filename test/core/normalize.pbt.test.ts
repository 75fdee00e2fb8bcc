import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contains, normalize } from "../../src/core/index.js";
import { anyString, operatorString, rawString, token, tokenText, trickyString, unicodeString } from "./arb.js";

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

  it("is idempotent on strings dense in signs, operators and super/subscripts", () => {
    fc.assert(
      fc.property(operatorString, (s) => normalize(normalize(s)) === normalize(s)),
      RUNS,
    );
  });

  it("never puts a super- or subscript in a token with anything else", () => {
    const script = /[⁰¹²³⁴-⁻₀-₋]/u;
    fc.assert(
      fc.property(fc.oneof(anyString, operatorString), (s) =>
        normalize(s)
          .split(" ")
          .every((t) => !script.test(t) || /^(?:[⁰¹²³⁴-⁻]+|[₀-₋]+)$/u.test(t)),
      ),
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

// one spelled piece of a text, with spellings that normalize to a different token ("flips")
interface Piece {
  readonly raw: string;
  readonly flips: readonly string[];
}

const numberPiece = fc
  .integer({ min: 1, max: 999 })
  .chain((n) =>
    fc.constantFrom<Piece>(
      { raw: `-${n}`, flips: [`${n}`, `+${n}`, `±${n}`] },
      { raw: `−${n}`, flips: [`${n}`, `+${n}`] },
      { raw: `+${n}`, flips: [`${n}`, `-${n}`] },
      { raw: `${n}`, flips: [`-${n}`, `+${n}`, `−${n}`] },
    ),
  );
const operatorPiece = fc.constantFrom<Piece>(
  { raw: "<", flips: [">", "<=", "≤", "=>"] },
  { raw: ">", flips: ["<", ">=", "≥", "->"] },
  { raw: "<=", flips: ["<", ">=", "≥", "=<"] },
  { raw: "≤", flips: ["<", ">", "≥", "≰"] },
  { raw: ">=", flips: [">", "<=", "=>", "≱"] },
  { raw: "!=", flips: ["<>", "!==", "<"] },
  { raw: "≠", flips: ["<>", ">", "!=="] },
  { raw: "->", flips: [">", "=>", "<-"] },
);
const wordPiece = token.map((t): Piece => ({ raw: t, flips: [] }));
const exponentPiece = fc.constantFrom<Piece>(
  { raw: "10⁶", flips: ["106", "10 6", "10⁻⁶", "10₆"] },
  { raw: "x²", flips: ["x2", "x 2", "x³"] },
  { raw: "H₂O", flips: ["H2O", "H 2 O", "H²O"] },
);

// symbols, fractions, invisible and bidi characters whose loss would change what a text says (adr/0100)
const symbolPiece = fc.constantFrom<Piece>(
  { raw: "UTC-5", flips: ["UTC+5", "UTC 5", "UTC5"] },
  { raw: "1e-5", flips: ["1e+5", "1e5", "1e 5"] },
  { raw: "¼", flips: ["1.4", "1 4", "1/4", "½"] },
  { raw: "5%", flips: ["$5", "5‰"] },
  { raw: "$50", flips: ["€50", "£50", "50%"] },
  { raw: "❌", flips: ["✅", "✔", "👍"] },
  { raw: "x ≉ y", flips: ["x ≈ y", "x y"] },
  { raw: "!ok", flips: ["ok", "!!ok"] },
  { raw: "500", flips: ["5.00", "5 00", "5,00"] },
  { raw: "5\u200b00", flips: ["5 00", "5.00"] },
  { raw: "51", flips: ["\u202e51\u202c", "\u206751\u2069"] },
  { raw: "not", flips: ["n\u0336o\u0336t\u0336", "n\u0338ot"] },
);

describe("signs, operators and super/subscripts", () => {
  it("every symbol piece normalizes differently from each of its flips, and is not contained in any", () => {
    const same: string[] = [];
    fc.assert(
      fc.property(symbolPiece, (p) => {
        for (const flip of p.flips)
          if (normalize(flip) === normalize(p.raw) || contains(flip, `a ${p.raw} b`)) same.push(`${p.raw} ~ ${flip}`);
      }),
      { numRuns: 200 },
    );
    expect([...new Set(same)]).toStrictEqual([]);
  });

  it("a flipped sign, operator, exponent or symbol makes a contained fragment not contained", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(wordPiece, numberPiece, operatorPiece, exponentPiece, symbolPiece), {
          minLength: 1,
          maxLength: 8,
        }),
        fc.nat(),
        fc.nat(),
        fc.nat(),
        (pieces, a, b, f) => {
          const flippable = pieces.map((p, i) => (p.flips.length > 0 ? i : -1)).filter((i) => i >= 0);
          fc.pre(flippable.length > 0);
          const k = flippable[a % flippable.length]!;
          const from = k - (b % (k + 1));
          const to = k + 1 + (b % (pieces.length - k));
          const flip = pieces[k]!.flips[f % pieces[k]!.flips.length]!;
          const text = pieces.map((p) => p.raw).join(" ");
          const fragment = pieces.slice(from, to).map((p) => p.raw);
          expect(contains(fragment.join(" "), text)).toBe(true);
          // the flipped piece's tokens must be new to the text, or the flip could be found elsewhere
          const textTokens = new Set(normalize(text).split(" "));
          fc.pre(normalize(flip) !== normalize(pieces[k]!.raw));
          fc.pre(
            normalize(flip)
              .split(" ")
              .some((t) => !textTokens.has(t)),
          );
          fragment[k - from] = flip;
          expect(contains(fragment.join(" "), text)).toBe(false);
        },
      ),
      RUNS,
    );
  });

  it("super- and subscript digits never merge with the digits next to them", () => {
    const digits = fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: 4 });
    const run = (signs: string, ds: string) =>
      fc
        .tuple(fc.constantFrom("", ...signs), fc.string({ unit: fc.constantFrom(...ds), minLength: 1, maxLength: 3 }))
        .map(([sign, d]) => sign + d);
    const superRun = run("⁺⁻", "⁰¹²³⁴⁵⁶⁷⁸⁹");
    const subRun = run("₊₋", "₀₁₂₃₄₅₆₇₈₉");
    fc.assert(
      fc.property(digits, fc.oneof(superRun, subRun), digits, (before, run, after) => {
        const s = `${before}${run}${after}`;
        expect(normalize(s)).toBe([before, run, after].filter((x) => x !== "").join(" "));
        // the same digits written on the line are another text
        const flat = `${before}${run.normalize("NFKD")}${after}`;
        expect(contains(flat, s)).toBe(false);
        expect(contains(s, flat)).toBe(false);
      }),
      RUNS,
    );
  });
});
