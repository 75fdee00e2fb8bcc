// The table of specs/question-routing.md is pinned by routing.spec.test.ts; these are the rest.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { routeQuestion } from "../../src/answers/index.js";

describe("routeQuestion", () => {
  it("refuses an empty question", () => {
    expect(routeQuestion("")).toEqual({ kind: "none", reason: "no run or change named" });
  });

  it("never throws, and names only digits for runs and PRs, hex for commits", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.string().map((s) => `run ${s}`),
          fc.string().map((s) => `PR ${s} #${s}`),
        ),
        (q) => {
          const r = routeQuestion(q);
          if (r.kind === "rca") expect(r.run).toMatch(/^\d+$/);
          if (r.kind === "summary") expect(r.change.id).toMatch(r.change.kind === "pr" ? /^\d+$/ : /^[0-9a-f]{7,64}$/);
          if (r.kind === "none")
            expect([
              "no run or change named",
              "both a run and a change named",
              "more than one run named",
              "more than one change named",
            ]).toContain(r.reason);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("is deterministic: the same question routes the same way", () => {
    fc.assert(
      fc.property(fc.string(), (q) => {
        expect(routeQuestion(q)).toEqual(routeQuestion(q));
      }),
    );
  });
});
