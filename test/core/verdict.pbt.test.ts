import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { decideGrounding, type GroundingState } from "../../src/core/index.js";

/** An independent statement of specs/grading.md, used as the oracle for random input. */
function expectedState(r: unknown): GroundingState {
  if (typeof r !== "object" || r === null || Array.isArray(r)) return "unavailable";
  const own = (k: string): unknown => (Object.hasOwn(r, k) ? (r as Record<string, unknown>)[k] : undefined);
  const unit = (v: unknown): v is number => typeof v === "number" && !Number.isNaN(v) && v >= 0 && v <= 1;
  const score = own("score");
  const threshold = own("threshold");
  const finding = own("unsupported_detected");
  if (!unit(score) || !unit(threshold) || typeof finding !== "boolean") return "unavailable";
  return finding || score < threshold ? "unsupported" : "supported";
}

/** Results shaped like the contract but with each member drawn from good and bad values. */
const contractish = fc.record(
  {
    score: fc.oneof(
      fc.double(),
      fc.double({ min: 0, max: 1 }),
      fc.constantFrom(0, 1, -0, Number.NaN, Infinity),
      fc.jsonValue(),
    ),
    threshold: fc.oneof(fc.double(), fc.double({ min: 0, max: 1 }), fc.constantFrom(0, 1, Number.NaN), fc.jsonValue()),
    unsupported_detected: fc.oneof(fc.boolean(), fc.jsonValue()),
    extra: fc.jsonValue(),
  },
  { requiredKeys: [] },
);

describe("decideGrounding on random input", () => {
  it("never says supported for random JSON unless it is valid and passing", () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => decideGrounding(v).state === expectedState(v)),
      { numRuns: 2000 },
    );
  });

  it("agrees with the independent predicate on contract-shaped records", () => {
    fc.assert(
      fc.property(contractish, (v) => {
        const d = decideGrounding(v);
        expect(d.state).toBe(expectedState(v));
        if (d.state === "unavailable") expect([d.score, d.threshold]).toStrictEqual([null, null]);
        else expect([d.score, d.threshold]).toStrictEqual([v.score, v.threshold]);
      }),
      { numRuns: 3000 },
    );
  });

  it("never throws and never says supported for anything at all", () => {
    fc.assert(
      fc.property(
        fc.anything({
          withBigInt: true,
          withBoxedValues: true,
          withMap: true,
          withNullPrototype: true,
          withSparseArray: true,
        }),
        (v) => {
          return decideGrounding(v).state === expectedState(v);
        },
      ),
      { numRuns: 2000 },
    );
  });
});
