/**
 * `generic`: a response already in the contract shape `{score, threshold, unsupported_detected}`.
 * @module
 */
import { type EvaluatorAdapter, isRecord, own, scalarOnly, stricter } from "./types.js";

/** The generic adapter, version 1. */
export const genericV1: EvaluatorAdapter = {
  name: "generic",
  version: "1",
  evaluate(raw, ctx) {
    if (raw === undefined || raw === null) return { adapted: { ok: false, reason: "missing_result" }, raw: null };
    if (!isRecord(raw)) return { adapted: { ok: false, reason: "invalid_response" }, raw };
    // the core validates the fields; only a present threshold is made stricter
    if (ctx.threshold === undefined || !Object.hasOwn(raw, "threshold"))
      return { adapted: { ok: true, result: raw }, raw };
    return {
      adapted: { ok: true, result: { ...raw, threshold: stricter(own(raw, "threshold"), ctx.threshold) } },
      raw,
    };
  },
  sanitize(raw) {
    if (!isRecord(raw)) return scalarOnly(raw);
    return {
      score: scalarOnly(own(raw, "score")),
      threshold: scalarOnly(own(raw, "threshold")),
      unsupported_detected: scalarOnly(own(raw, "unsupported_detected")),
    };
  },
};
