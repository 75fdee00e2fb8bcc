/**
 * The `GroundedResult` contract: an answer path's claims, each checked with `isSupported`, with the
 * evidence it cites. The types are derived from the zod schemas of schema.ts, the one definition.
 * @module
 */
import type { z } from "zod";
import type { DeepReadonly } from "../platform/deep-readonly.js";
import type {
  CLAIM_ROLES,
  groundedClaimSchema,
  groundedResultSchema,
  ROUTE_KINDS,
  signatureScoreSchema,
  supportRefSchema,
} from "./schema.js";

/** Answer routes: root-cause analysis of a failed run, a change summary, or none (refused). */
export type RouteKind = (typeof ROUTE_KINDS)[number];

/** Claim roles of the two answer paths. */
export type ClaimRole = (typeof CLAIM_ROLES)[number];

/** A cited record as it appears in a result: the locator carries a human rendering. */
export type SupportRef = DeepReadonly<z.output<typeof supportRefSchema>>;

/** One claim of a grounded answer. */
export type GroundedClaim = DeepReadonly<z.output<typeof groundedClaimSchema>>;

/** Why an RCA answer's `failure_signature` claim cites its line: rule, score, basis and reasons. */
export type SignatureScore = DeepReadonly<z.output<typeof signatureScoreSchema>>;

/** A grounded answer (or a refusal, with no claims). Keys appear in this order in JSON. */
export type GroundedResult = DeepReadonly<z.output<typeof groundedResultSchema>>;

/** The grounding keys a `GroundedResult` and an `ActionProposal` share. */
export type Grounding = Pick<GroundedResult, "domain" | "question" | "route" | "grounded" | "refused" | "refusal">;
