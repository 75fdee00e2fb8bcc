/**
 * The `ActionProposal` contract of specs/json-shapes.md: a propose-and-approve draft whose every field is a
 * verbatim, re-verified fragment of cited evidence. The types are derived from the zod schemas of
 * contract.ts, the one definition.
 * @module
 */
import type { z } from "zod";
import type { ClaimRole, RouteKind } from "../answers/types.js";
import type { DeepReadonly } from "../platform/deep-readonly.js";
import type { ACTION_KIND_NAMES, actionFieldSchema, proposalSchema } from "./contract.js";

/** The action kinds of the catalog. */
export type ActionKind = (typeof ACTION_KIND_NAMES)[number];

/** One field of a proposal. `role` names the grounded claim the value came from. */
export type ActionField = DeepReadonly<z.output<typeof actionFieldSchema>>;

/**
 * A drafted action, or a refusal with no fields. Keys appear in this order in JSON: `kind`, the
 * grounding keys it shares with a `GroundedResult` (answers/schema.ts), then these.
 */
export type ActionProposal = DeepReadonly<z.output<typeof proposalSchema>>;

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
