/**
 * `generic`: a response already in the contract shape `{score, threshold, unsupported_detected}`.
 * Its threshold can only raise the application's, which is 1 unless the input sets it: whatever
 * produced the result does not decide how low a score passes.
 * @module
 */
import { type EvaluatorAdapter, own, scalarOnly, stricter } from "./types.js";
import { isObject } from "../../platform/objects.js";

/** The application's threshold when the input gives none: every part of the answer grounded. */
export const GENERIC_DEFAULT_THRESHOLD = 1;

/** The generic adapter, version 1. */
export const genericV1: EvaluatorAdapter = {
  name: "generic",
  version: "1",
  evaluate(raw, ctx) {
    if (raw === undefined || raw === null) return { adapted: { ok: false, reason: "missing_result" }, raw: null };
    if (!isObject(raw)) return { adapted: { ok: false, reason: "invalid_response" }, raw };
    // the core validates the fields; a missing threshold stays missing (no decision), a present one
    // is raised to the application's
    if (!Object.hasOwn(raw, "threshold")) return { adapted: { ok: true, result: raw }, raw };
    const threshold = stricter(own(raw, "threshold"), ctx.threshold ?? GENERIC_DEFAULT_THRESHOLD);
    return { adapted: { ok: true, result: { ...raw, threshold } }, raw };
  },
  sanitize(raw) {
    if (!isObject(raw)) return scalarOnly(raw);
    return {
      score: scalarOnly(own(raw, "score")),
      threshold: scalarOnly(own(raw, "threshold")),
      unsupported_detected: scalarOnly(own(raw, "unsupported_detected")),
    };
  },
};
