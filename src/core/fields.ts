/**
 * Field faithfulness at the action boundary (specs/json-shapes.md).
 * @module
 */
import { type ClaimGrammar, defaultClaimGrammar, firstContaining } from "./claims.js";
import type { Claim } from "./evidence.js";
import { normalize } from "./normalize.js";

/** Why a field is or is not verified. */
export type FieldReason =
  | "identical_to_claim"
  | "fragment_of_record"
  | "claim_unsupported"
  | "not_faithful"
  | "empty_value";

/** The verdict on one field value against the claim it came from. */
export interface FieldResult {
  /** Faithful and supported. */
  readonly verified: boolean;
  /** The value is the claim text, or contained in one single cited record. */
  readonly faithful: boolean;
  /** The source claim passes `isSupported`. */
  readonly supported: boolean;
  /** Why, as a stable code. */
  readonly reason: FieldReason;
}

/**
 * A field is verified when its claim is supported and the value is faithful: identical to the claim
 * text, or contained in one single cited record — never spliced across records.
 */
export function verifyField(value: string, claim: Claim, grammar: ClaimGrammar = defaultClaimGrammar): FieldResult {
  const supported = grammar.isSupported(claim).supported;
  let faithful: boolean;
  let reason: FieldReason;
  if (typeof value !== "string" || normalize(value).length === 0) {
    faithful = false;
    reason = "empty_value";
  } else if (typeof claim === "object" && claim !== null && value === claim.text) {
    faithful = true;
    reason = "identical_to_claim";
  } else {
    const support: unknown = typeof claim === "object" && claim !== null ? claim.support : undefined;
    faithful = Array.isArray(support) && firstContaining(normalize(value), support) !== undefined;
    reason = faithful ? "fragment_of_record" : "not_faithful";
  }
  if (faithful && !supported) reason = "claim_unsupported";
  return { verified: faithful && supported, faithful, supported, reason };
}
