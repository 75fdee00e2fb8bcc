import { describe, expect, it } from "vitest";
import { normalize } from "../../src/core/normalize.js";
import { gradeSentences } from "../../src/grading/evaluators/builtin.js";
import { containedUnnegated } from "../../src/grading/negation.js";

const POLICY =
  "A chair may be reimbursed up to USD 500 with manager approval. Desks are not reimbursed. Claims must be filed within 60 days of purchase.";
const doc = { id: "hr", revision: "1", text: POLICY };
const supported = (answer: string, text = POLICY) =>
  gradeSentences(answer, [{ ...doc, text }]).verdicts.map((v) => v.supported);

describe("containedUnnegated", () => {
  it("is token-bounded containment when no negation is next to the match", () => {
    expect(containedUnnegated(normalize("up to USD 500"), normalize(POLICY))).toBe(true);
    expect(containedUnnegated(normalize("up to USD 50"), normalize(POLICY))).toBe(false);
    expect(containedUnnegated("", normalize(POLICY))).toBe(false);
  });

  it("is void for an occurrence right before or after a negation, and holds at another occurrence", () => {
    expect(containedUnnegated(normalize("Desks are"), normalize(POLICY))).toBe(false);
    expect(containedUnnegated(normalize("reimbursed"), normalize("Desks are not reimbursed."))).toBe(false);
    expect(
      containedUnnegated(normalize("All claims are reimbursed"), normalize("Not all claims are reimbursed.")),
    ).toBe(false);
    expect(containedUnnegated(normalize("Desks are"), normalize("Desks are not reimbursed. Desks are large."))).toBe(
      true,
    );
    expect(containedUnnegated(normalize("Desks"), normalize("Desks ❌ reimbursed"))).toBe(false);
  });

  it("lets a sentence followed by one that starts with `No` stand", () => {
    expect(
      containedUnnegated(normalize("Chairs are reimbursed"), normalize("Chairs are reimbursed. No receipt.")),
    ).toBe(true);
  });
});

describe("builtin grading of answers cut around a negation", () => {
  it("does not support the cut that remains after the sentence rules", () => {
    expect(supported("Desks are. Reimbursed up to USD 500 with manager approval [hr].")).toEqual([false, true]);
    expect(supported("- Desks are\n- reimbursed up to USD 500 with manager approval [hr]")).toEqual([false, true]);
  });

  it("does not support the ellipsis and soft-break splices of the evidence", () => {
    expect(supported("Desks are... reimbursed up to USD 500... with manager approval [hr].")).toEqual([false]);
    expect(supported("Desks are\nreimbursed up to USD 500 with manager approval [hr].")).toEqual([false]);
  });

  it("still supports what the evidence says", () => {
    expect(
      supported("A chair may be reimbursed\nup to USD 500 with manager approval [hr].\n\nDesks are not reimbursed."),
    ).toEqual([true, true]);
  });
});
