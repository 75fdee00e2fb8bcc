/**
 * The `GroundedResult` contract of DESIGN.md §6: an answer path's claims, each checked with
 * `isSupported`, with the evidence it cites.
 * @module
 */

/** Answer routes: root-cause analysis of a failed run, a change summary, or none (refused). */
export type RouteKind = "rca" | "summary" | "none";

/** Claim roles of the two answer paths. */
export type ClaimRole =
  | "run"
  | "log"
  | "failure_signature"
  | "alternative_signature"
  | "prior_occurrence"
  | "documented_incident"
  | "resolving_change"
  | "pull_request"
  | "code_change"
  | "motivating_ticket"
  | "ticket";

/** A cited record as it appears in a result: the locator carries a human rendering. */
export interface SupportRef {
  readonly id: string;
  readonly source: string;
  readonly locator: {
    readonly kind: string;
    readonly parts: readonly (readonly [string, string])[];
    readonly render: string;
  };
  readonly text: string;
}

/** One claim of a grounded answer. */
export interface GroundedClaim {
  readonly role: ClaimRole;
  readonly text: string;
  readonly verified: boolean;
  readonly shape: string;
  readonly support: readonly SupportRef[];
}

/** A grounded answer (or a refusal, with no claims). Keys appear in this order in JSON. */
export interface GroundedResult {
  readonly domain: string;
  readonly question: string;
  readonly route: { readonly kind: RouteKind; readonly reason: string };
  readonly grounded: boolean;
  readonly refused: boolean;
  readonly refusal: string | null;
  readonly claims: readonly GroundedClaim[];
  readonly all_verified: boolean;
}
