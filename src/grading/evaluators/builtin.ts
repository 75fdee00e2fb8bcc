/**
 * `builtin`: the deterministic verifier. Every answer sentence must be contained (token-bounded,
 * specs/normalization.md, with no negation right next to the match) in a document it cites — or, when it cites none, in any authorized document.
 * score = supported sentences ÷ sentences; any unsupported sentence is a finding.
 * @module
 */
import { normalizedText } from "../../core/text-cache.js";
import { containedUnnegated } from "../negation.js";
import { splitSentences } from "../sentences.js";
import { probeTokens, tokenSet } from "../text-index.js";
import type { EvidenceDocument } from "../types.js";
import { enumOnly, type EvaluatorAdapter, own, scalarOnly } from "./types.js";
import { isObject } from "../../platform/objects.js";

/** The default threshold: every sentence must be supported. */
export const BUILTIN_DEFAULT_THRESHOLD = 1;

/** Why one sentence is or is not supported. */
export type SentenceReason =
  | "contained_in_cited"
  | "contained_in_evidence"
  | "not_contained"
  | "unknown_citation"
  | "revision_mismatch"
  | "empty_sentence";

/** The verdict on one sentence (no text: the audit record keeps only positions and reasons). */
export interface SentenceVerdict {
  readonly index: number;
  readonly supported: boolean;
  readonly reason: SentenceReason;
  readonly citations: readonly string[];
}

/** The computed raw result of the builtin evaluator. */
export interface BuiltinResult {
  readonly score: number;
  readonly threshold: number;
  readonly unsupported_detected: boolean;
  readonly sentences: number;
  readonly supported: number;
  readonly verdicts: readonly SentenceVerdict[];
}

type Resolved =
  | { ok: true; docs: EvidenceDocument[] }
  | { ok: false; reason: "unknown_citation" | "revision_mismatch" };

// `[id]` names every revision of `id` in the bundle; `[id@rev]` names one, and a different revision is a mismatch
function resolve(citation: string, byId: ReadonlyMap<string, EvidenceDocument[]>): Resolved {
  const exact = byId.get(citation);
  if (exact !== undefined) return { ok: true, docs: exact };
  const at = citation.lastIndexOf("@");
  if (at > 0) {
    const docs = byId.get(citation.slice(0, at));
    if (docs !== undefined) {
      const rev = citation.slice(at + 1);
      const match = docs.filter((d) => d.revision === rev);
      return match.length > 0 ? { ok: true, docs: match } : { ok: false, reason: "revision_mismatch" };
    }
  }
  return { ok: false, reason: "unknown_citation" };
}

/** Grade an answer against documents with the builtin rules; pure and deterministic. */
export function gradeSentences(
  answer: string,
  documents: readonly EvidenceDocument[],
  threshold = BUILTIN_DEFAULT_THRESHOLD,
): BuiltinResult {
  const byId = new Map<string, EvidenceDocument[]>();
  for (const d of documents) {
    const list = byId.get(d.id);
    if (list === undefined) byId.set(d.id, [d]);
    else list.push(d);
  }
  const verdicts: SentenceVerdict[] = splitSentences(answer).map((s, index) => {
    const v = (supported: boolean, reason: SentenceReason): SentenceVerdict => ({
      index,
      supported,
      reason,
      citations: s.citations,
    });
    if (s.normalized === "") return v(false, "empty_sentence");
    const probes = probeTokens(s.normalized);
    const contained = (d: EvidenceDocument): boolean => {
      const tokens = tokenSet(d);
      return probes.every((t) => tokens.has(t)) && containedUnnegated(s.normalized, normalizedText(d));
    };
    if (s.citations.length === 0)
      return documents.some(contained) ? v(true, "contained_in_evidence") : v(false, "not_contained");
    const cited: EvidenceDocument[] = [];
    for (const c of s.citations) {
      const r = resolve(c, byId);
      if (!r.ok) return v(false, r.reason); // citing evidence the evaluator never saw is never support
      cited.push(...r.docs);
    }
    return cited.some(contained) ? v(true, "contained_in_cited") : v(false, "not_contained");
  });
  const supported = verdicts.filter((x) => x.supported).length;
  const n = verdicts.length;
  // an answer with no sentences asserts nothing checkable: score 0 and a finding
  return {
    score: n === 0 ? 0 : supported / n,
    threshold,
    unsupported_detected: n === 0 || supported < n,
    sentences: n,
    supported,
    verdicts,
  };
}

const REASONS: readonly SentenceReason[] = [
  "contained_in_cited",
  "contained_in_evidence",
  "not_contained",
  "unknown_citation",
  "revision_mismatch",
  "empty_sentence",
];

// citation ids resolved to evaluated documents are evidence ids; an unresolved one is answer text, and is omitted
function sanitizeVerdict(v: unknown): unknown {
  if (!isObject(v)) return scalarOnly(v);
  const reason = enumOnly(own(v, "reason"), REASONS);
  const citations = own(v, "citations");
  const keep =
    reason !== "unknown_citation" && Array.isArray(citations) && citations.every((c) => typeof c === "string");
  return {
    index: scalarOnly(own(v, "index")),
    supported: scalarOnly(own(v, "supported")),
    reason,
    citations: keep ? citations : "<omitted>",
  };
}

/** The builtin adapter, version 1 (the rules of specs/grading.md). */
export const builtinV1: EvaluatorAdapter = {
  name: "builtin",
  version: "1",
  evaluate(_raw, ctx) {
    const result = gradeSentences(ctx.answer, ctx.documents, ctx.threshold ?? BUILTIN_DEFAULT_THRESHOLD);
    return {
      adapted: {
        ok: true,
        result: { score: result.score, threshold: result.threshold, unsupported_detected: result.unsupported_detected },
      },
      raw: result,
    };
  },
  sanitize(raw) {
    // the computed result has no text; a caller's `result` (ignored by builtin) is reduced to the same fields
    if (!isObject(raw)) return scalarOnly(raw);
    const verdicts = own(raw, "verdicts");
    return {
      score: scalarOnly(own(raw, "score")),
      threshold: scalarOnly(own(raw, "threshold")),
      unsupported_detected: scalarOnly(own(raw, "unsupported_detected")),
      sentences: scalarOnly(own(raw, "sentences")),
      supported: scalarOnly(own(raw, "supported")),
      verdicts: Array.isArray(verdicts) ? verdicts.map(sanitizeVerdict) : scalarOnly(verdicts),
    };
  },
};
