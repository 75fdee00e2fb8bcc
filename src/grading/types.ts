/**
 * The answer-grading contract of specs/grading.md: inputs, the grading record and its reasons.
 * @module
 */
import type { GroundingReason, GroundingState } from "../core/verdict.js";

/** One retrieved document as generation and evaluation see it. */
export interface EvidenceDocument {
  /** Stable document id; citations name it. */
  readonly id: string;
  /** The document's version; a new revision changes the bundle digest. */
  readonly revision: string;
  /** Display title; not part of the digest. */
  readonly title?: string;
  /** The text generation and evaluation see. */
  readonly text: string;
}

/** The versioned evidence set of one request: what generation and evaluation must both see. */
export interface EvidenceBundle {
  /** The request this evidence was retrieved for. */
  readonly request_id: string;
  /** The user's question. */
  readonly query: string;
  /** The authorized documents, in canonical order. */
  readonly documents: readonly EvidenceDocument[];
}

/** The evaluators with pinned adapters. */
export type EvaluatorName = "builtin" | "bedrock" | "azure" | "generic";

/** An evaluator as named in the grading record. */
export interface EvaluatorRef {
  /** Evaluator name (`builtin`, `bedrock`, `azure`, `generic`, or the unknown name given). */
  readonly name: string;
  /** The pinned version used, or the unknown version given. */
  readonly version: string;
}

/** The evaluator configuration of an input; version defaults to the newest pinned one. */
export interface EvaluatorConfig {
  /** Which evaluator produced (or, for `builtin`, computes) the result. */
  readonly name: EvaluatorName;
  /** The pinned adapter version; default the newest. */
  readonly version?: string;
  /** The application's threshold in [0, 1]; the stricter of it and the provider's applies. */
  readonly threshold?: number;
}

/** The input of `tessera grade` (specs/grading.md), plus `timed_out` for an evaluator that missed its deadline. */
export interface GradeInput {
  /** The request being graded. */
  readonly request_id: string;
  /** The user's question. */
  readonly query: string;
  /** The generated answer, exactly as delivered. */
  readonly answer: string;
  /** The retrieved documents (filtered again by `GradeOptions.access` when given). */
  readonly evidence: readonly EvidenceDocument[];
  /** The evaluator; default `builtin`. */
  readonly evaluator?: EvaluatorConfig;
  /** The evaluator's raw saved response (ignored by `builtin`, which computes its own). */
  readonly result?: unknown;
  /** The bundle digest the generator saw; compared with the digest of the evidence evaluated. */
  readonly generation_digest?: string;
  /** True when the evaluator gave no result before the delivery deadline. */
  readonly timed_out?: boolean;
}

/** Why a grading record has its state: the core's reasons plus the grading layer's. */
export type GradeReason =
  | GroundingReason
  | "evaluator_timeout"
  | "evidence_mismatch"
  | "unknown_evaluator"
  | "invalid_response"
  | "missing_grounding_filter";

/** What the application does with the answer in each state. */
export type DeliveryAction = "deliver" | "deliver_with_notice" | "withhold";

/** A delivery action for each state. */
export interface DeliveryPolicy {
  /** Action for a supported answer (default `deliver`). */
  readonly supported: DeliveryAction;
  /** Action for an unsupported answer (default `withhold`). */
  readonly unsupported: DeliveryAction;
  /** Action when there is no decision (default `withhold`). */
  readonly unavailable: DeliveryAction;
}

/** The grading record; keys appear in this order in JSON. */
export interface GradeResult {
  /** `supported`, `unsupported` or `unavailable`. */
  readonly state: GroundingState;
  /** The validated score, null when unavailable. */
  readonly score: number | null;
  /** The threshold applied, null when unavailable. */
  readonly threshold: number | null;
  /** Why: a stable snake_case code. */
  readonly reason: GradeReason;
  /** Distinct ids of the evaluated documents, in canonical order. */
  readonly evidence_ids: readonly string[];
  /** The evaluator and pinned version used. */
  readonly evaluator: EvaluatorRef;
  /** What the delivery policy says to do with the answer. */
  readonly delivery: DeliveryAction;
}
