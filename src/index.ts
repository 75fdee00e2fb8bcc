/**
 * Tessera's public API. Importing it loads no MCP SDK and no database driver: adapters load on
 * first use, and the MCP server lives behind `tessera/mcp`.
 * @module
 */
export {
  type Bindings,
  canonicalJson,
  type Claim,
  ClaimGrammar,
  type ClaimShape,
  combineOutcomes,
  compareScalars,
  type Condition,
  type ConditionCode,
  type ConditionResult,
  contains,
  decideGrounding,
  defaultClaimGrammar,
  type EvidenceRecord,
  evaluateConditions,
  type FieldResult,
  type GroundingDecision,
  type GroundingState,
  isSupported,
  type Locator,
  type MatchResult,
  normalize,
  type Outcome,
  type Row,
  type Scalar,
  scalarEquals,
  type SupportResult,
  verifyField,
} from "./core/index.js";
export {
  type ActionField,
  type ActionKind,
  type ActionProposal,
  type ActionSpec,
  type ClaimsCheck,
  draftAction,
  type FieldCheck,
  type IssuePreview,
  listActions,
  type ProposalCheck,
  parseProposal,
  renderGithubIssue,
  renderMarkdown,
  verifyClaims,
  verifyProposal,
} from "./actions/index.js";
export {
  type ClaimRole,
  type GroundedClaim,
  type GroundedResult,
  ground,
  groundQuestion,
  type RouteKind,
  type SupportRef,
} from "./answers/index.js";
export { type IngestProblem, type IngestSummary, type OpenOptions, openWorkspace, type RunInfo, type Workspace } from "./evidence/index.js";
export {
  type CheckReport,
  type Decision,
  type Gate,
  loadPolicy,
  type Policy,
  PolicyError,
  type ToolCall,
} from "./checks/index.js";
export { createGate, type GateOptions } from "./sources/gate.js";
export { digestOf, sha256Hex } from "./platform/digest.js";
export { TesseraError } from "./platform/errors.js";
export {
  type AccessDecision,
  AuthorizationCache,
  type AuthorizeHook,
  authorizeEvidence,
  DEFAULT_DELIVERY_POLICY,
  type DeliveryAction,
  type DeliveryPolicy,
  deliveryPolicy,
  evidenceDigest,
  type EvidenceBundle,
  type EvidenceDocument,
  type GradeAudit,
  gradeAnswer,
  gradeAnswerAudited,
  type GradeInput,
  type GradeOptions,
  type GradeReason,
  type GradeResult,
  makeBundle,
  parseGradeInput,
  type Principal,
  withDeadline,
} from "./grading/index.js";
