/**
 * Readers of the JSON the action layer takes from outside: a proposal handed to an approver (its
 * schema is contract.ts), a list of claims to check, and a `GroundedResult` (for cases and saved
 * groundings). Errors name the JSON path of the first offending value.
 * @module
 */
import { z } from "zod";
import type { GroundedResult } from "../answers/types.js";
import { CLAIM_ROLES, checkRender, groundedResultSchema, partsSchema } from "../answers/schema.js";
import type { Claim, EvidenceRecord } from "../core/index.js";
import type { InputErrorCode } from "../platform/error-codes.js";
import { TesseraError } from "../platform/errors.js";
import { proposalSchema } from "./contract.js";
import type { ActionProposal } from "./types.js";

export { checkRender, groundedResultSchema } from "../answers/schema.js";
export { proposalSchema } from "./contract.js";

const locatorSchema = z
  .strictObject({ kind: z.string(), parts: partsSchema, render: z.string().optional() })
  .superRefine(checkRender);

/** An evidence record as JSON (specs/claim-grammar.md); a `render` on its locator (as `ground` prints) is checked. */
export const evidenceRecordSchema = z.strictObject({
  id: z.string().min(1),
  source: z.string(),
  locator: locatorSchema,
  text: z.string(),
  revision: z.string().optional(),
});

/**
 * `tessera verify --claims` input: a list of claims (also accepted under a `claims` key). A claim of a
 * `GroundedResult` (`tessera ground --json … | jq .claims`) is one: its `role`, `verified` and `shape`
 * are the producer's labels, accepted and never used for the verdict, which is recomputed.
 */
export const claimsSchema = z.array(
  z.strictObject({
    role: z.enum(CLAIM_ROLES).optional(),
    text: z.string(),
    verified: z.boolean().optional(),
    shape: z.string().optional(),
    support: z.array(evidenceRecordSchema),
  }),
);
const wrappedClaimsSchema = z.strictObject({ claims: claimsSchema });

/** `fields[2].support[0]` from a zod path; the root is `(root)`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const p of path) {
    if (typeof p === "number") out += `[${p}]`;
    else out += out === "" ? String(p) : `.${String(p)}`;
  }
  return out === "" ? "(root)" : out;
}

function parseWith<T>(schema: z.ZodType<T>, value: unknown, code: InputErrorCode): T {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const issue = r.error.issues[0]!;
  let message = issue.message;
  if (issue.code === "unrecognized_keys") message = `unknown key ${issue.keys.map((k) => `\`${k}\``).join(", ")}`;
  message = message.charAt(0).toLowerCase() + message.slice(1);
  throw new TesseraError(code, message.replace(/\.$/, ""), jsonPath(issue.path));
}

/** Validate a proposal; throws `TesseraError` `proposal_invalid` with the JSON path. */
export function parseProposal(value: unknown): ActionProposal {
  return parseWith(proposalSchema, value, "proposal_invalid");
}

/**
 * Validate claims input — a list of claims, `{claims}`, or a whole grounded result as `tessera ground
 * --json` prints it; throws `TesseraError` `claims_invalid` with the JSON path.
 */
export function parseClaims(value: unknown): Claim[] {
  if (Array.isArray(value)) return parseWith(claimsSchema, value, "claims_invalid");
  if (value === null || typeof value !== "object") {
    throw new TesseraError(
      "claims_invalid",
      "expected a list of claims, an object with `claims`, or a grounded result",
      "(root)",
    );
  }
  if (Object.hasOwn(value, "route")) {
    parseWith(groundedResultSchema, value, "claims_invalid");
    return parseWith(claimsSchema, (value as { claims: unknown }).claims, "claims_invalid");
  }
  return parseWith(wrappedClaimsSchema, value, "claims_invalid").claims;
}

/** Validate a list of evidence records; throws `TesseraError` `records_invalid` with the JSON path. */
export function parseEvidenceRecords(value: unknown): EvidenceRecord[] {
  return parseWith(z.array(evidenceRecordSchema), value, "records_invalid");
}

/** Validate a grounded result; throws `TesseraError` `grounding_invalid` with the JSON path. */
export function parseGroundedResult(value: unknown): GroundedResult {
  return parseWith(groundedResultSchema, value, "grounding_invalid");
}
