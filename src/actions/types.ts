/**
 * The `ActionProposal` contract of specs/json-shapes.md: a propose-and-approve draft whose every field is a
 * verbatim, re-verified fragment of cited evidence.
 * @module
 */
import type { ClaimRole, Grounding, RouteKind } from "../answers/types.js";

/** The action kinds of the catalog. */
export type ActionKind = "incident" | "pr_summary";

/** One field of a proposal. `role` names the grounded claim the value came from. */
export interface ActionField {
  readonly name: string;
  readonly role: ClaimRole;
  readonly value: string;
  readonly verified: boolean;
  /** Ids of the evidence records the value is checked against. */
  readonly support: readonly string[];
}

/**
 * A drafted action, or a refusal with no fields. Keys appear in this order in JSON: `kind`, the
 * grounding keys it shares with a `GroundedResult` (answers/schema.ts), then these.
 */
export interface ActionProposal extends Grounding {
  readonly kind: ActionKind;
  readonly fields: readonly ActionField[];
  readonly all_grounded: boolean;
  readonly requires_approval: true;
  readonly executed: false;
}

/** A catalog entry: what an action kind drafts from and which fields it may carry. */
export interface ActionSpec {
  readonly kind: ActionKind;
  readonly description: string;
  /** Answer routes the kind drafts from. */
  readonly routes: readonly RouteKind[];
  /** Grounding domains the kind serves. */
  readonly domains: readonly string[];
  /** The claim role the title is lifted from. */
  readonly title_from: ClaimRole;
  /** Claim roles the route may produce, each becoming a field named by its role. */
  readonly roles: readonly ClaimRole[];
}
