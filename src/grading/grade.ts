/**
 * `gradeAnswer`: the three-state grading contract of specs/grading.md around the core's
 * `decideGrounding`. The grading layer adds what the core cannot see: authorization of the
 * evidence, the generation/evaluation digest check, evaluator timeouts, adapters and delivery.
 * @module
 */
import { decideGrounding, type GroundingState } from "../core/verdict.js";
import type { AccessDecision } from "./authorize.js";
import { answerDigest, canonicalOrder, evidenceDigest } from "./bundle.js";
import { deliveryPolicy } from "./delivery.js";
import { findEvaluator } from "./evaluators/index.js";
import { isUnit } from "./evaluators/types.js";
import type {
  DeliveryPolicy,
  EvaluatorName,
  EvaluatorRef,
  EvidenceDocument,
  GradeInput,
  GradeReason,
  GradeResult,
} from "./types.js";

/** How to grade: an evaluator overriding the input's, the authorization decision, the delivery policy. */
export interface GradeOptions {
  /** Evaluator name overriding `input.evaluator.name` (as `tessera grade --evaluator` does). */
  readonly evaluator?: EvaluatorName;
  /** The authorization decision for this request: documents whose id it does not allow are never evaluated. */
  readonly access?: AccessDecision;
  /** Delivery actions per state (default: withhold unsupported and unavailable). */
  readonly policy?: Partial<DeliveryPolicy>;
}

/** The audit record of specs/grading.md: identifiers, digests, the sanitized raw result and the decision — never document text. */
export interface GradeAudit {
  readonly request_id: string;
  readonly evidence: readonly { readonly id: string; readonly revision: string }[];
  readonly evidence_digest: string;
  readonly generation_digest: string | null;
  readonly authorization: {
    readonly principal: string;
    readonly entitlement_version: string;
    readonly denied_ids: readonly string[];
  } | null;
  readonly answer_digest: string;
  readonly evaluator: EvaluatorRef;
  readonly raw_result: unknown;
  readonly state: GroundingState;
  readonly reason: GradeReason;
  readonly delivery: GradeResult["delivery"];
}

interface Graded {
  readonly result: GradeResult;
  readonly documents: readonly EvidenceDocument[];
  readonly digest: () => string;
  readonly raw: unknown;
}

function run(input: GradeInput, options: GradeOptions): Graded {
  const policy = deliveryPolicy(options.policy);
  const config = input.evaluator;
  const name: string = options.evaluator ?? config?.name ?? "builtin";
  const adapter = findEvaluator(name, config?.name === name ? config.version : undefined);
  const evaluator: EvaluatorRef = {
    name,
    version: adapter?.version ?? (config?.name === name ? config.version : undefined) ?? "unknown",
  };

  const allowed = options.access === undefined ? undefined : new Set(options.access.allowed_ids);
  const documents = canonicalOrder(
    allowed === undefined ? input.evidence : input.evidence.filter((d) => allowed.has(d.id)),
  );
  const evidence_ids = [...new Set(documents.map((d) => d.id))];
  let digest: string | undefined;
  const digestOnce = (): string => (digest ??= evidenceDigest(documents));

  let raw: unknown = input.result ?? null;
  const record = (
    state: GroundingState,
    score: number | null,
    threshold: number | null,
    reason: GradeReason,
  ): Graded => ({
    result: { state, score, threshold, reason, evidence_ids, evaluator, delivery: policy[state] },
    documents,
    digest: digestOnce,
    raw,
  });
  const unavailable = (reason: GradeReason): Graded => record("unavailable", null, null, reason);

  if (adapter === undefined) return unavailable("unknown_evaluator");
  const threshold = config?.threshold;
  if (threshold !== undefined && !isUnit(threshold)) return unavailable("invalid_threshold");
  // the verdict must describe the evidence the answer was generated from
  if (input.generation_digest !== undefined && input.generation_digest !== digestOnce())
    return unavailable("evidence_mismatch");
  if (input.timed_out === true) return unavailable("evaluator_timeout");

  let adapted;
  try {
    const out = adapter.evaluate(input.result, {
      answer: input.answer,
      documents,
      ...(threshold === undefined ? {} : { threshold }),
    });
    adapted = out.adapted;
    raw = out.raw;
  } catch {
    return unavailable("invalid_response"); // a hostile response (throwing getter, proxy) is no result
  }
  if (!adapted.ok) return unavailable(adapted.reason);
  const d = decideGrounding(adapted.result);
  return record(d.state, d.score, d.threshold, d.reason);
}

/**
 * Grade an answer against its authorized evidence: `supported`, `unsupported` or `unavailable`,
 * with the delivery action. Never `supported` unless a valid result passed; never throws for any
 * evaluator response (an invalid delivery policy is a configuration error and throws).
 * @example gradeAnswer({ request_id: "r1", query: "q", answer: "Chairs up to USD 500.", evidence: [{ id: "hr", revision: "1", text: "Chairs up to USD 500 with approval." }] }).state // "supported"
 */
export function gradeAnswer(input: GradeInput, options: GradeOptions = {}): GradeResult {
  return run(input, options).result;
}

/** Grade as `gradeAnswer` does and return the audit record of the decision too. */
export function gradeAnswerAudited(
  input: GradeInput,
  options: GradeOptions = {},
): { result: GradeResult; audit: GradeAudit } {
  const g = run(input, options);
  const adapter = findEvaluator(g.result.evaluator.name, g.result.evaluator.version);
  const access = options.access;
  const audit: GradeAudit = {
    request_id: input.request_id,
    evidence: g.documents.map((d) => ({ id: d.id, revision: d.revision })),
    evidence_digest: g.digest(),
    generation_digest: input.generation_digest ?? null,
    authorization:
      access === undefined
        ? null
        : {
            principal: access.principal,
            entitlement_version: access.entitlement_version,
            denied_ids: access.denied_ids,
          },
    answer_digest: answerDigest(input.answer),
    evaluator: g.result.evaluator,
    raw_result: adapter === undefined ? null : sanitizeSafely(adapter.sanitize, g.raw),
    state: g.result.state,
    reason: g.result.reason,
    delivery: g.result.delivery,
  };
  return { result: g.result, audit };
}

function sanitizeSafely(sanitize: (raw: unknown) => unknown, raw: unknown): unknown {
  try {
    return sanitize(raw) ?? null;
  } catch {
    return "<unreadable>";
  }
}
