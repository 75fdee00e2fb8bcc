/**
 * The pure core: every verdict in Tessera goes through these functions. No I/O, no Node built-ins,
 * no npm packages (see adr/0002-pure-core-and-fence.md).
 * @module
 */
export { canonicalJson } from "./canonical.js";
export {
  type ClaimShape,
  ClaimGrammar,
  defaultClaimGrammar,
  firstContaining,
  isSupported,
  SHARED_FRAGMENT_LABELS,
  type SharedFragmentLabel,
  sharedFragmentShape,
  snippetShape,
  type SupportReason,
  type SupportResult,
} from "./claims.js";
export { combineOutcomes, type Outcome } from "./decision.js";
export { type Claim, type EvidenceRecord, type Locator, renderLocator } from "./evidence.js";
export { type FieldReason, type FieldResult, verifyField } from "./fields.js";
export {
  type ArgCondition,
  type Bindings,
  type ColumnOp,
  type CompareOp,
  compareWith,
  type Condition,
  type ConditionCode,
  type ConditionResult,
  type CtxCondition,
  ERROR_CODES,
  evaluateConditions,
  inList,
  type MatchResult,
  type NullCondition,
  type NullOp,
  resolveBinding,
  type Row,
  type RowsCondition,
  type ValueCondition,
} from "./match.js";
export { contains, containsNormalized, NORMALIZATION_VERSION, normalize } from "./normalize.js";
export { compareScalars, isScalar, type Scalar, scalarEquals } from "./scalar.js";
export { normalizedText } from "./text-cache.js";
export { decideGrounding, type GroundingDecision, type GroundingReason, type GroundingState } from "./verdict.js";
