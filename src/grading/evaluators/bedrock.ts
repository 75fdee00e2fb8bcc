/**
 * `bedrock`: the contextual grounding policy assessments of an Amazon Bedrock `ApplyGuardrail`
 * response (bedrock-runtime API 2023-09-30). Each `assessments[].contextualGroundingPolicy.filters[]`
 * entry has `type` (GROUNDING | RELEVANCE), `threshold` and `score` in [0, 1], `action`
 * (BLOCKED | NONE) and an optional `detected`. Other policies (content, PII, topics, words) are not
 * grounding and are ignored here; fixtures: test/fixtures/evaluators/bedrock/2023-09-30/.
 * @module
 */
import type { GradeReason } from "../types.js";
import { type EvaluatorAdapter, enumOnly, isUnit, own, scalarOnly, stricter } from "./types.js";
import { isObject } from "../../platform/objects.js";

const TYPES = ["GROUNDING", "RELEVANCE"] as const;
const ACTIONS = ["BLOCKED", "NONE"] as const;
const TOP_ACTIONS = ["GUARDRAIL_INTERVENED", "NONE"] as const;

interface Filter {
  readonly type: (typeof TYPES)[number];
  readonly score: number;
  readonly threshold: number;
  readonly flagged: boolean;
}

type Read<T> = { ok: true; value: T } | { ok: false; reason: GradeReason };

function readFilter(f: unknown): Read<Filter> {
  if (!isObject(f)) return { ok: false, reason: "invalid_response" };
  const type = own(f, "type");
  if (typeof type !== "string" || !(TYPES as readonly string[]).includes(type))
    return { ok: false, reason: "invalid_response" };
  const score = own(f, "score");
  const threshold = own(f, "threshold");
  const action = own(f, "action");
  const detected = own(f, "detected");
  if (!isUnit(score)) return { ok: false, reason: "invalid_score" };
  if (!isUnit(threshold)) return { ok: false, reason: "invalid_threshold" };
  if (typeof action !== "string" || !(ACTIONS as readonly string[]).includes(action))
    return { ok: false, reason: "invalid_finding" };
  if (detected !== undefined && typeof detected !== "boolean") return { ok: false, reason: "invalid_finding" };
  // INVARIANT: any sign of failure flags the filter, so a response contradicting itself is never a pass
  const flagged = detected === true || action === "BLOCKED" || score < threshold;
  return { ok: true, value: { type: type as Filter["type"], score, threshold, flagged } };
}

function readFilters(raw: unknown): Read<Filter[]> {
  if (raw === undefined || raw === null) return { ok: false, reason: "missing_result" };
  if (!isObject(raw)) return { ok: false, reason: "invalid_response" };
  const top = own(raw, "action");
  if (typeof top !== "string" || !(TOP_ACTIONS as readonly string[]).includes(top))
    return { ok: false, reason: "invalid_response" };
  const assessments = own(raw, "assessments");
  if (!Array.isArray(assessments)) return { ok: false, reason: "invalid_response" };
  const filters: Filter[] = [];
  for (const a of assessments) {
    if (!isObject(a)) return { ok: false, reason: "invalid_response" };
    const policy = own(a, "contextualGroundingPolicy");
    if (policy === undefined) continue;
    if (!isObject(policy)) return { ok: false, reason: "invalid_response" };
    const fs = own(policy, "filters");
    if (!Array.isArray(fs)) return { ok: false, reason: "invalid_response" };
    for (const f of fs) {
      const r = readFilter(f);
      if (!r.ok) return r;
      filters.push(r.value);
    }
  }
  return { ok: true, value: filters };
}

/** The Bedrock ApplyGuardrail adapter, pinned to bedrock-runtime API version 2023-09-30. */
export const bedrock20230930: EvaluatorAdapter = {
  name: "bedrock",
  version: "2023-09-30",
  evaluate(raw, ctx) {
    const read = readFilters(raw);
    if (!read.ok) return { adapted: { ok: false, reason: read.reason }, raw: raw ?? null };
    const grounding = read.value.filter((f) => f.type === "GROUNDING");
    if (grounding.length === 0) return { adapted: { ok: false, reason: "missing_grounding_filter" }, raw };
    // several assessments: the weakest grounding score against the strictest threshold
    const score = Math.min(...grounding.map((f) => f.score));
    const threshold = stricter(Math.max(...grounding.map((f) => f.threshold)), ctx.threshold);
    const unsupported_detected = read.value.some((f) => f.flagged);
    return { adapted: { ok: true, result: { score, threshold, unsupported_detected } }, raw };
  },
  sanitize(raw) {
    if (!isObject(raw)) return scalarOnly(raw);
    const assessments = own(raw, "assessments");
    return {
      action: enumOnly(own(raw, "action"), TOP_ACTIONS),
      assessments: Array.isArray(assessments)
        ? assessments.map((a) => {
            const policy = isObject(a) ? own(a, "contextualGroundingPolicy") : undefined;
            const fs = isObject(policy) ? own(policy, "filters") : undefined;
            if (!Array.isArray(fs)) return { contextualGroundingPolicy: scalarOnly(policy) };
            return {
              contextualGroundingPolicy: {
                filters: fs.map((f) =>
                  isObject(f)
                    ? {
                        type: enumOnly(own(f, "type"), TYPES),
                        threshold: scalarOnly(own(f, "threshold")),
                        score: scalarOnly(own(f, "score")),
                        action: enumOnly(own(f, "action"), ACTIONS),
                        detected: scalarOnly(own(f, "detected")),
                      }
                    : scalarOnly(f),
                ),
              },
            };
          })
        : scalarOnly(assessments),
    };
  },
};
