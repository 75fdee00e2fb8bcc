import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { type Claim, isSupported, normalize, verifyField } from "../../src/core/index.js";
import { tokenText } from "./arb.js";
import { claim, record } from "./records.js";

const RUNS = { numRuns: 1000 };

describe("verifyField properties", () => {
  it("verifies every contiguous token run of the one record a supported claim cites", () => {
    fc.assert(
      fc.property(tokenText, fc.nat(), fc.nat(), (text, i, j) => {
        const tokens = normalize(text).split(" ").filter(Boolean);
        fc.pre(tokens.length > 0);
        const start = i % tokens.length;
        const value = tokens.slice(start, start + 1 + (j % (tokens.length - start))).join(" ");
        const r = record("r", text);
        expect(verifyField(value, claim(text, r)).verified).toBe(true);
      }),
      RUNS,
    );
  });

  it("never verifies a value with a token that no cited record has", () => {
    fc.assert(
      fc.property(tokenText, tokenText, (a, b) => {
        const ra = record("a", a);
        const rb = record("b", b);
        const c = claim(a, ra, rb);
        fc.pre(normalize(a) !== "");
        const absent = `qqzzj${normalize(`${a} ${b}`).replaceAll(" ", "").length}`; // a token neither record has
        expect(verifyField(`${a} ${absent}`, c).verified).toBe(false);
        expect(verifyField(`${absent} ${b}`, c).verified).toBe(false);
      }),
      RUNS,
    );
  });

  it("never verifies a value spliced from two records when neither record holds it whole", () => {
    fc.assert(
      fc.property(tokenText, tokenText, (a, b) => {
        fc.pre(normalize(a) !== "" && normalize(b) !== "");
        const spliced = `${a} ${b}`;
        const ns = normalize(spliced);
        const inA = ` ${normalize(a)} `.includes(` ${ns} `);
        const inB = ` ${normalize(b)} `.includes(` ${ns} `);
        const c = claim(a, record("a", a), record("b", b));
        expect(verifyField(spliced, c).verified).toBe(inA || inB);
      }),
      RUNS,
    );
  });

  it("never throws on any value or claim, and never verifies what is not a well-formed claim", () => {
    const anything = fc.anything({ withBigInt: true, withNullPrototype: true, withSparseArray: true });
    const claimish = fc.record(
      {
        text: fc.oneof(fc.string(), anything),
        support: fc.oneof(fc.array(fc.oneof(anything, fc.constant(record("r", "x")))), anything),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.string(), anything), fc.oneof(claimish, anything), (value, c) => {
        const f = verifyField(value as string, c as Claim);
        const s = isSupported(c as Claim);
        expect(typeof f.verified).toBe("boolean");
        expect(typeof s.supported).toBe("boolean");
        if (typeof value !== "string") expect(f.verified).toBe(false);
      }),
      RUNS,
    );
  });
});
