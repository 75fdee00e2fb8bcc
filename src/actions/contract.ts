/**
 * The `ActionProposal` contract as zod schemas (specs/json-shapes.md): the one definition its
 * TypeScript types (types.ts) and the approver's reader (schema.ts) derive from; the MCP output
 * schema (src/mcp/schemas.ts) is the loose form clients see and shares the grounding keys. Adding
 * an action kind is a decision (adr/0020-propose-and-approve-actions.md).
 * @module
 */
import { z } from "zod";
import { CLAIM_ROLES, groundingKeys, routeSchema } from "../answers/schema.js";

/** The action kinds; the catalog (catalog.ts) has one entry for each. */
export const ACTION_KIND_NAMES = ["incident", "pr_summary"] as const;

/** One field of a proposal. `role` names the grounded claim the value came from. */
export const actionFieldSchema = z.strictObject({
  name: z.string().min(1),
  role: z.enum(CLAIM_ROLES),
  value: z.string(),
  verified: z.boolean(),
  /** Ids of the evidence records the value is checked against. */
  support: z.array(z.string().min(1)),
});

/**
 * An `ActionProposal` as JSON (specs/json-shapes.md): a drafted action, or a refusal with no fields.
 * Keys appear in this order: `kind`, the grounding keys it shares with a `GroundedResult`, then the
 * rest. Field names must be unique.
 */
export const proposalSchema = z
  .strictObject({
    kind: z.enum(ACTION_KIND_NAMES),
    ...groundingKeys(routeSchema),
    fields: z.array(actionFieldSchema),
    all_grounded: z.boolean(),
    requires_approval: z.literal(true),
    executed: z.literal(false),
  })
  .superRefine((p, ctx) => {
    // a refusal carries no fields, and only a refusal has a reason (specs/json-shapes.md)
    if (p.refused && p.fields.length > 0)
      ctx.addIssue({ code: "custom", path: ["fields"], message: "a refused proposal carries no fields" });
    if (p.refused && p.refusal === null)
      ctx.addIssue({ code: "custom", path: ["refusal"], message: "a refused proposal states its refusal" });
    if (!p.refused && p.refusal !== null)
      ctx.addIssue({ code: "custom", path: ["refusal"], message: "only a refused proposal has a refusal" });
    const seen = new Set<string>();
    p.fields.forEach((f, i) => {
      if (seen.has(f.name))
        ctx.addIssue({ code: "custom", path: ["fields", i, "name"], message: `duplicate field name \`${f.name}\`` });
      seen.add(f.name);
    });
  });
