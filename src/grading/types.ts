/**
 * The answer-grading contract of DESIGN.md §8: inputs, the grading record and its reasons.
 * @module
 */
import type { GroundingReason, GroundingState } from "../core/verdict.js";

/** One retrieved document as generation and evaluation see it. */
export interface EvidenceDocument {
  readonly id: string;
  readonly revision: string;
  readonly title?: string;
  readonly text: string;
}

/** The versioned evidence set of one request: what generation and evaluation must both see. */
export interface EvidenceBundle {
  readonly request_id: string;
  readonly query: string;
  readonly documents: readonly EvidenceDocument[];
}

/** The evaluators with pinned adapters. */
export type EvaluatorName = "builtin" | "bedrock" | "azure" | "generic";

/** An evaluator as named in the grading record. */
export interface EvaluatorRef {
  readonly name: string;
  readonly version: string;
}

/** The evaluator configuration of an input; version defaults to the newest pinned one. */
export interface EvaluatorConfig {
  readonly name: EvaluatorName;
  readonly version?: string;
  /** The application's threshold in [0, 1]; the stricter of it and the provider's applies. */
  readonly threshold?: number;
}

/** The input of `tessera grade` (DESIGN.md §8), plus `timed_out` for an evaluator that missed its deadline. */
export interface GradeInput {
  readonly request_id: string;
  readonly query: string;
  readonly answer: string;
  readonly evidence: readonly EvidenceDocument[];
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
  readonly supported: DeliveryAction;
  readonly unsupported: DeliveryAction;
  readonly unavailable: DeliveryAction;
}

/** The grading record; keys appear in this order in JSON. */
export interface GradeResult {
  readonly state: GroundingState;
  readonly score: number | null;
  readonly threshold: number | null;
  readonly reason: GradeReason;
  readonly evidence_ids: readonly string[];
  readonly evaluator: EvaluatorRef;
  readonly delivery: DeliveryAction;
}
