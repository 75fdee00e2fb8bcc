/**
 * The `GroundedResult` contract as zod schemas (specs/json-shapes.md): the one definition its
 * TypeScript types (types.ts), the action layer's readers and the MCP output schemas derive from.
 * The grounding keys, which an `ActionProposal` shares, are `groundingKeys`.
 * @module
 */
import { z } from "zod";
import { renderLocator } from "../core/index.js";

/** Claim roles of the two answer paths. */
export const CLAIM_ROLES = [
  "run",
  "log",
  "failure_signature",
  "alternative_signature",
  "prior_occurrence",
  "documented_incident",
  "resolving_change",
  "pull_request",
  "code_change",
  "motivating_ticket",
  "ticket",
] as const;

/** Answer routes: root-cause analysis of a failed run, a change summary, or none (refused). */
export const ROUTE_KINDS = ["rca", "summary", "none"] as const;

/** The route an answer took and why; strict, as the readers of saved results take it. */
export const routeSchema = z.strictObject({ kind: z.enum(ROUTE_KINDS), reason: z.string() });

/** A locator's parts: `[name, value]` pairs. */
export const partsSchema = z.array(z.tuple([z.string(), z.string()]));

/**
 * The keys a `GroundedResult` and an `ActionProposal` share, in contract order, around the schema of
 * their `route` (strict for readers, loose for the MCP output schemas).
 */
export function groundingKeys<R extends z.ZodType>(route: R) {
  return {
    domain: z.string(),
    question: z.string(),
    route,
    grounded: z.boolean(),
    refused: z.boolean(),
    refusal: z.string().nullable(),
  };
}

/**
 * A locator's `render`, where one is given, must be what `renderLocator` makes of its kind and parts:
 * people read it, so it may not say something else. For `superRefine` on a locator object.
 */
export function checkRender(
  locator: { readonly kind: string; readonly parts: readonly (readonly [string, string])[]; readonly render?: string },
  ctx: z.RefinementCtx,
): void {
  if (locator.render === undefined) return;
  const expected = renderLocator(locator);
  if (locator.render !== expected)
    ctx.addIssue({
      code: "custom",
      path: ["render"],
      message: `\`render\` differs from what the locator's kind and parts render as, \`${expected}\``,
    });
}

/** A cited record as it appears in a result: the locator carries a human rendering. */
export const supportRefSchema = z.strictObject({
  id: z.string().min(1),
  source: z.string(),
  locator: z.strictObject({ kind: z.string(), parts: partsSchema, render: z.string() }).superRefine(checkRender),
  text: z.string(),
});

/** One claim of a grounded answer. */
export const groundedClaimSchema = z.strictObject({
  role: z.enum(CLAIM_ROLES),
  text: z.string(),
  verified: z.boolean(),
  shape: z.string(),
  support: z.array(supportRefSchema),
});

/**
 * Why an RCA answer's `failure_signature` claim cites the line it does (specs/failure-signatures.md):
 * the cited record, the rule that made it a candidate, its score and the named reasons summing to it.
 */
export const signatureScoreSchema = z.strictObject({
  id: z.string().min(1),
  rule: z.string(),
  score: z.number(),
  basis: z.enum(["top_score", "before_trailer", "last_output"]),
  reasons: z.array(z.strictObject({ reason: z.string(), points: z.number() })),
});

/** A grounded answer (or a refusal, with no claims). Keys appear in this order in JSON. */
export const groundedResultSchema = z.strictObject({
  ...groundingKeys(routeSchema),
  claims: z.array(groundedClaimSchema),
  all_verified: z.boolean(),
  // additive (adr/0105): only on an RCA answer with a failure_signature claim; no verdict reads it
  signature: signatureScoreSchema.optional(),
});
