/**
 * The effective policy digest: over the policy document after `${VAR}` interpolation, so two
 * deployments of one policy file whose variables differ (another table, another database) never
 * share it, as they share the document digest (adr/0006, amended by adr/0066). The interpolated
 * document may hold secrets, so it is not a plain hash: scrypt, salted with the document digest,
 * makes guessing a short secret from a digest in an audit log costly. Computed on first use, once.
 * @module
 */
import { scryptSync } from "node:crypto";
import { canonicalJson } from "../core/canonical.js";
import type { Policy } from "./policy.js";

const interpolated = new WeakMap<Policy, unknown>();
const computed = new WeakMap<Policy, string>();

/** scrypt cost: 2^15 iterations of 8 × 128 bytes, about 32 MiB and tens of milliseconds, once per policy. */
const COST = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 2 ** 20 } as const;

/** Keep the interpolated document a loaded policy was built from (called by the loader). */
export function rememberInterpolated(policy: Policy, document: unknown): void {
  interpolated.set(policy, document);
}

/**
 * `scrypt:<hex>` over the canonical JSON of `policy`'s document after interpolation, salted with its
 * document digest. Throws for a policy the loader did not build.
 */
export function effectivePolicyDigest(policy: Policy): string {
  const known = computed.get(policy);
  if (known !== undefined) return known;
  if (!interpolated.has(policy)) throw new TypeError("effectivePolicyDigest: the policy was not loaded by loadPolicy");
  const key = scryptSync(canonicalJson(interpolated.get(policy)), policy.digest, 32, COST);
  const digest = `scrypt:${key.toString("hex")}`;
  computed.set(policy, digest);
  return digest;
}
