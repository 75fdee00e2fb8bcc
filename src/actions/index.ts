/**
 * Action proposals (specs/json-shapes.md): the catalog, the drafter, the approver's re-verification and the
 * previews. Propose-and-approve only: nothing here executes anything.
 * @module
 */
export { ACTION_KINDS, actionSpec, CI_DOMAIN, isActionKind, listActions } from "./catalog.js";
export { draftAction, recordOf } from "./draft.js";
export { type IssuePreview, NOT_EXECUTED_NOTICE, renderGithubIssue, renderMarkdown } from "./preview.js";
export {
  claimsSchema,
  evidenceRecordSchema,
  groundedResultSchema,
  jsonPath,
  parseClaims,
  parseEvidenceRecords,
  parseGroundedResult,
  parseProposal,
  proposalSchema,
} from "./schema.js";
export type { ActionField, ActionKind, ActionProposal, ActionSpec } from "./types.js";
export {
  type ClaimCheck,
  type ClaimsCheck,
  type FieldCheck,
  type FieldProblem,
  type FieldProblemCode,
  type PartCheck,
  type ProposalCheck,
  verifyClaims,
  verifyProposal,
  type VerifyProposalOptions,
} from "./verify.js";
