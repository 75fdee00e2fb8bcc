import { describe, expect, it } from "vitest";
import { decideGrounding } from "../../src/core/index.js";

describe("decideGrounding: the expected checks of specs/grading.md", () => {
  it("None is unavailable", () => {
    expect(decideGrounding(null).state).toBe("unavailable");
    expect(decideGrounding(undefined).state).toBe("unavailable");
  });
  it("a score alone is unavailable", () => {
    expect(decideGrounding({ score: 0.9 }).state).toBe("unavailable");
  });
  it("0.92 over 0.7 with no finding is supported", () => {
    expect(decideGrounding({ score: 0.92, threshold: 0.7, unsupported_detected: false })).toStrictEqual({
      state: "supported",
      score: 0.92,
      threshold: 0.7,
      reason: "support_rule_passed",
    });
  });
  it("0.62 under 0.7 is unsupported", () => {
    expect(decideGrounding({ score: 0.62, threshold: 0.7, unsupported_detected: false })).toStrictEqual({
      state: "unsupported",
      score: 0.62,
      threshold: 0.7,
      reason: "support_rule_failed",
    });
  });
  it("a finding makes even 0.95 unsupported", () => {
    expect(decideGrounding({ score: 0.95, threshold: 0.7, unsupported_detected: true }).state).toBe("unsupported");
  });
});

const ok = { score: 0.9, threshold: 0.7, unsupported_detected: false };

/** Malformed evaluator results, each with the reason it must give. */
const MALFORMED: readonly [string, unknown, string][] = [
  ["null", null, "missing_result"],
  ["undefined", undefined, "missing_result"],
  ["empty object", {}, "missing_result"],
  ["a number", 0.9, "missing_result"],
  ["a string", "supported", "missing_result"],
  ["a boolean", true, "missing_result"],
  ["an array of the three values", [0.9, 0.7, false], "missing_result"],
  ["an array holding a valid result", [ok], "missing_result"],
  ["a boxed number", Object(0.9), "missing_result"],
  ["score NaN", { ...ok, score: Number.NaN }, "invalid_score"],
  ["score Infinity", { ...ok, score: Infinity }, "invalid_score"],
  ["score -Infinity", { ...ok, score: -Infinity }, "invalid_score"],
  ["score a numeric string", { ...ok, score: "0.9" }, "invalid_score"],
  ["score a boolean", { ...ok, score: true }, "invalid_score"],
  ["score an array", { ...ok, score: [0.9] }, "invalid_score"],
  ["score negative", { ...ok, score: -0.1 }, "invalid_score"],
  ["score above 1", { ...ok, score: 1.01 }, "invalid_score"],
  ["score null", { ...ok, score: null }, "invalid_score"],
  ["score a bigint", { ...ok, score: 1n }, "invalid_score"],
  ["score missing", { threshold: 0.7, unsupported_detected: false }, "invalid_score"],
  [
    "score nested one level deeper",
    { score: { value: 0.9 }, threshold: 0.7, unsupported_detected: false },
    "invalid_score",
  ],
  ["the whole result nested", { result: ok }, "invalid_score"],
  [
    "score only inherited",
    Object.assign(Object.create({ score: 0.9 }), { threshold: 0.7, unsupported_detected: false }),
    "invalid_score",
  ],
  ["threshold missing", { score: 0.9, unsupported_detected: false }, "invalid_threshold"],
  ["threshold NaN", { ...ok, threshold: Number.NaN }, "invalid_threshold"],
  ["threshold a string", { ...ok, threshold: "0.7" }, "invalid_threshold"],
  ["threshold a boolean", { ...ok, threshold: false }, "invalid_threshold"],
  ["threshold above 1", { ...ok, threshold: 70 }, "invalid_threshold"],
  ["threshold negative", { ...ok, threshold: -0.7 }, "invalid_threshold"],
  ["threshold Infinity", { ...ok, threshold: Infinity }, "invalid_threshold"],
  ["finding missing", { score: 0.9, threshold: 0.7 }, "invalid_finding"],
  ["finding the string false", { ...ok, unsupported_detected: "false" }, "invalid_finding"],
  ["finding 0", { ...ok, unsupported_detected: 0 }, "invalid_finding"],
  ["finding null", { ...ok, unsupported_detected: null }, "invalid_finding"],
  ["finding an array", { ...ok, unsupported_detected: [false] }, "invalid_finding"],
  ["finding misspelled", { score: 0.9, threshold: 0.7, unsupportedDetected: false }, "invalid_finding"],
  [
    "a throwing getter",
    Object.defineProperty({ threshold: 0.7, unsupported_detected: false }, "score", {
      enumerable: true,
      get() {
        throw new Error("boom");
      },
    }),
    "missing_result",
  ],
  [
    "a hostile proxy",
    new Proxy(
      {},
      {
        ownKeys() {
          throw new Error("boom");
        },
      },
    ),
    "missing_result",
  ],
];

describe("decideGrounding: malformed results are never supported", () => {
  it.each(MALFORMED)("%s is unavailable", (_name, result, reason) => {
    const d = decideGrounding(result);
    expect(d.state).toBe("unavailable");
    expect(d.reason).toBe(reason);
    expect(d.score).toBeNull();
    expect(d.threshold).toBeNull();
  });

  it("covers at least 20 malformed shapes", () => {
    expect(MALFORMED.length).toBeGreaterThanOrEqual(20);
  });
});
