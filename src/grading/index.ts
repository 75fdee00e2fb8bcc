/**
 * Answer grading (specs/grading.md): the evidence bundle and its digest, retrieval
 * authorization with a principal- and entitlement-keyed cache, pinned evaluator adapters, the
 * three-state `gradeAnswer`, the delivery policy and the audit record.
 * @module
 */
export {
  type AccessDecision,
  AuthorizationCache,
  type AuthorizedEvidence,
  type AuthorizeHook,
  allowListHook,
  authorizeEvidence,
  type Principal,
} from "./authorize.js";
export { answerDigest, canonicalOrder, evidenceDigest, generationPayload, makeBundle } from "./bundle.js";
export { type DeadlineOutcome, withDeadline } from "./deadline.js";
export { DEFAULT_DELIVERY_POLICY, DELIVERY_ACTIONS, deliveryPolicy } from "./delivery.js";
export {
  type AdaptContext,
  type Adapted,
  AZURE_DEFAULT_THRESHOLD,
  BUILTIN_DEFAULT_THRESHOLD,
  type BuiltinResult,
  type EvaluatorAdapter,
  EVALUATORS,
  findEvaluator,
  GENERIC_DEFAULT_THRESHOLD,
  gradeSentences,
  type SentenceReason,
  type SentenceVerdict,
} from "./evaluators/index.js";
export { type GradeAudit, gradeAnswer, gradeAnswerAudited, type GradeOptions } from "./grade.js";
export { type AccessList, accessSchema, gradeInputSchema, parseAccessList, parseGradeInput } from "./input.js";
export { type AnswerSentence, splitSentences } from "./sentences.js";
export type {
  DeliveryAction,
  DeliveryPolicy,
  EvaluatorConfig,
  EvaluatorName,
  EvaluatorRef,
  EvidenceBundle,
  EvidenceDocument,
  GradeInput,
  GradeReason,
  GradeResult,
} from "./types.js";
