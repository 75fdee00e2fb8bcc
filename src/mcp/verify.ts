/**
 * `verify_claims`: the core verifier over claims the caller supplies, each with its cited records.
 * No SDK import.
 * @module
 */
import { type Claim, isSupported } from "../core/index.js";

/** The verdict on one claim, in contract key order. `record` is the supporting record of a snippet. */
export interface ClaimVerdict {
  readonly text: string;
  readonly supported: boolean;
  readonly shape: string;
  readonly reason: string;
  readonly record: string | null;
}

/** What `verify_claims` returns: a verdict per claim, in order, and whether every claim is supported. */
export interface ClaimsReport {
  readonly claims: readonly ClaimVerdict[];
  readonly all_supported: boolean;
}

/** Check each claim with `isSupported`; `all_supported` needs at least one claim. */
export function verifyClaims(claims: readonly Claim[]): ClaimsReport {
  const verdicts = claims.map((c): ClaimVerdict => {
    const r = isSupported(c);
    return { text: c.text, supported: r.supported, shape: r.shape, reason: r.reason, record: r.record ?? null };
  });
  return { claims: verdicts, all_supported: verdicts.length > 0 && verdicts.every((v) => v.supported) };
}
