import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { combineOutcomes, type Outcome } from "../../src/core/index.js";

const outcome = fc.constantFrom<Outcome>("allow", "hold", "block");

/** The reference rule, stated as specs/json-shapes.md states it. */
function reference(os: readonly Outcome[]): Outcome {
  if (os.includes("block")) return "block";
  if (os.includes("hold")) return "hold";
  return "allow";
}

describe("combineOutcomes", () => {
  it("is independent of order", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(outcome, fc.double({ noNaN: true }))), (tagged) => {
        const os = tagged.map(([o]) => o);
        const shuffled = [...tagged].sort((x, y) => x[1] - y[1]).map(([o]) => o);
        return (
          combineOutcomes(os) === combineOutcomes(shuffled) &&
          combineOutcomes(os) === combineOutcomes([...os].reverse())
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("follows block > hold > allow, with allow for no outcomes", () => {
    fc.assert(
      fc.property(fc.array(outcome), (os) => combineOutcomes(os) === reference(os)),
      { numRuns: 2000 },
    );
    expect(combineOutcomes([])).toBe("allow");
  });

  it("counts anything that is not an outcome as block", () => {
    for (const bad of ["blok", "", "ALLOW", "toString", undefined, null]) {
      expect(combineOutcomes(["allow", bad as unknown as Outcome])).toBe("block");
    }
  });

  it("accepts any iterable", () => {
    function* gen(): Generator<Outcome> {
      yield "allow";
      yield "hold";
    }
    expect(combineOutcomes(gen())).toBe("hold");
    expect(combineOutcomes(new Set<Outcome>(["block", "allow"]))).toBe("block");
  });
});
