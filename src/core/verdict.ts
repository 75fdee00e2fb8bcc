/**
 * The three-state grounding contract (specs/grading.md).
 * @module
 */

/** Grounding states; `unavailable` is not a weaker `supported`: it means there is no decision. */
export type GroundingState = "supported" | "unsupported" | "unavailable";

/** Stable reasons for a grounding decision. */
export type GroundingReason =
  | "missing_result"
  | "invalid_score"
  | "invalid_threshold"
  | "invalid_finding"
  | "support_rule_failed"
  | "support_rule_passed";

/** A validated grounding decision. */
export interface GroundingDecision {
  /** The three-state verdict. */
  readonly state: GroundingState;
  /** The validated score, or null when the result was unusable. */
  readonly score: number | null;
  /** The validated threshold, or null when the result was unusable. */
  readonly threshold: number | null;
  /** Why, as a stable code. */
  readonly reason: GroundingReason;
}

const unavailable = (reason: GroundingReason): GroundingDecision => ({
  state: "unavailable",
  score: null,
  threshold: null,
  reason,
});

const isUnitNumber = (v: unknown): v is number => typeof v === "number" && v >= 0 && v <= 1; // NaN fails both comparisons

function read(result: object, key: string): unknown {
  return Object.hasOwn(result, key) ? (result as Record<string, unknown>)[key] : undefined;
}

/**
 * Validate an evaluator result `{score, threshold, unsupported_detected}` and decide. Missing or
 * malformed input is `unavailable`, never `supported`. Never throws.
 * @example decideGrounding({ score: 0.92, threshold: 0.7, unsupported_detected: false }).state // "supported"
 */
export function decideGrounding(result: unknown): GroundingDecision {
  try {
    if (result === null || typeof result !== "object" || Array.isArray(result) || Object.keys(result).length === 0) {
      return unavailable("missing_result");
    }
    const score = read(result, "score");
    const threshold = read(result, "threshold");
    const detected = read(result, "unsupported_detected");
    if (!isUnitNumber(score)) return unavailable("invalid_score");
    if (!isUnitNumber(threshold)) return unavailable("invalid_threshold");
    if (typeof detected !== "boolean") return unavailable("invalid_finding");
    if (detected || score < threshold) return { state: "unsupported", score, threshold, reason: "support_rule_failed" };
    return { state: "supported", score, threshold, reason: "support_rule_passed" };
  } catch {
    return unavailable("missing_result"); // a hostile object (throwing getter, proxy) is no result
  }
}
