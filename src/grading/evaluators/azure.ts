/**
 * `azure`: an Azure AI Content Safety groundedness detection response (`text:detectGroundedness`,
 * api-version 2024-02-15-preview): `ungroundedDetected` (boolean), `ungroundedPercentage` in [0, 1]
 * and `ungroundedDetails[]` (ungrounded spans with `text`, `offset`, `length` and, with reasoning,
 * `reason`). The service gives no threshold: the application's applies, default 1 (any ungrounded
 * share fails). The score is `1 - ungroundedPercentage` in exact decimal arithmetic, never rounded
 * up to a threshold it does not reach. Fixtures: test/fixtures/evaluators/azure/2024-02-15-preview/.
 * @module
 */
import { atLeast, decimalOf, type EvaluatorAdapter, isUnit, nextDown, own, scalarOnly } from "./types.js";
import { isObject } from "../../platform/objects.js";

// the documented encodings of an ungrounded span's offset and length (the service spells them utF8, utF16)
const SPAN_KEYS = ["utF8", "utF16", "utf8", "utf16", "codePoint"] as const;

/** The default threshold on `1 - ungroundedPercentage`: every part of the answer must be grounded. */
export const AZURE_DEFAULT_THRESHOLD = 1;

/**
 * `1 - pct` computed on the decimals the two numbers are written as, so `1 - 0.41` is `0.59`; and
 * when that share is below `threshold` but its nearest double is not (`1 - 1e-17` is the double 1),
 * the double just below the threshold: a non-zero ungrounded share never meets a threshold it misses.
 */
export function groundedShare(pct: number, threshold: number): number {
  const p = decimalOf(pct);
  const e = Math.min(p.e, 0);
  const share = { m: 10n ** BigInt(-e) - p.m * 10n ** BigInt(p.e - e), e };
  const score = Number(`${share.m}e${share.e}`);
  return score >= threshold && !atLeast(share, decimalOf(threshold)) ? nextDown(threshold) : score;
}

/** The Azure groundedness detection adapter, pinned to api-version 2024-02-15-preview. */
export const azure20240215: EvaluatorAdapter = {
  name: "azure",
  version: "2024-02-15-preview",
  evaluate(raw, ctx) {
    if (raw === undefined || raw === null) return { adapted: { ok: false, reason: "missing_result" }, raw: null };
    if (!isObject(raw)) return { adapted: { ok: false, reason: "invalid_response" }, raw };
    const detected = own(raw, "ungroundedDetected");
    const pct = own(raw, "ungroundedPercentage");
    const details = own(raw, "ungroundedDetails");
    if (typeof detected !== "boolean") return { adapted: { ok: false, reason: "invalid_finding" }, raw };
    if (!isUnit(pct)) return { adapted: { ok: false, reason: "invalid_score" }, raw };
    if (details !== undefined && (!Array.isArray(details) || !details.every(isObject)))
      return { adapted: { ok: false, reason: "invalid_response" }, raw };
    // INVARIANT: an ungrounded span listed while `ungroundedDetected` is false still counts as a finding
    const unsupported_detected = detected || (Array.isArray(details) && details.length > 0);
    const threshold = ctx.threshold ?? AZURE_DEFAULT_THRESHOLD;
    const result = { score: groundedShare(pct, threshold), threshold, unsupported_detected };
    return { adapted: { ok: true, result }, raw };
  },
  sanitize(raw) {
    if (!isObject(raw)) return scalarOnly(raw);
    const details = own(raw, "ungroundedDetails");
    const span = (v: unknown) =>
      isObject(v)
        ? Object.fromEntries(SPAN_KEYS.filter((k) => Object.hasOwn(v, k)).map((k) => [k, scalarOnly(v[k])]))
        : scalarOnly(v);
    return {
      ungroundedDetected: scalarOnly(own(raw, "ungroundedDetected")),
      ungroundedPercentage: scalarOnly(own(raw, "ungroundedPercentage")),
      // the ungrounded text and the model's reasoning quote the answer and the documents: only positions are kept
      ungroundedDetails: Array.isArray(details)
        ? details.map((d) =>
            isObject(d) ? { offset: span(own(d, "offset")), length: span(own(d, "length")) } : scalarOnly(d),
          )
        : scalarOnly(details),
    };
  },
};
