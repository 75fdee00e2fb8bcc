/**
 * Grounded answers over workspace evidence: the router, root-cause analysis and change summary,
 * giving the `GroundedResult` contract of specs/json-shapes.md.
 * @module
 */
export { checkClaim, DOMAIN, type DraftClaim, supportRef } from "./claims.js";
export { ground, groundQuestion } from "./ground.js";
export {
  MAX_ALTERNATIVES,
  MAX_LOG_CLAIMS,
  MAX_PRIOR_RUNS,
  rootCause,
  type SignatureCandidate,
  signatureCandidates,
} from "./rca.js";
export { routeQuestion, type RouteTarget } from "./router.js";
export { MAX_HUNK_CLAIMS, MAX_HUNK_LINES, summarizeChange } from "./summary.js";
export type { ClaimRole, GroundedClaim, GroundedResult, RouteKind, SupportRef } from "./types.js";
