import { createHash, createHmac } from "node:crypto";
import { canonicalJson } from "../core/canonical.js";

/** Lower-case hex SHA-256 of a string (UTF-8) or bytes. */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/** `sha256:<hex>` over the canonical JSON of a value: the digest every contract uses. */
export function digestOf(value: unknown): string {
  return `sha256:${sha256Hex(canonicalJson(value))}`;
}

/** The prefix of a keyed digest: HMAC-SHA-256 under a store's own secret (adr/0071). */
export const KEYED_DIGEST_PREFIX = "hmac-sha256:";

/** A function from a value to its digest, as a store computes it. */
export type Digester = (value: unknown) => string;

/**
 * `hmac-sha256:<hex>` over the canonical JSON of a value, under `key`: the digest of arguments and
 * context in the audit log and the review queue. Without the key, enumerating candidate values
 * never reproduces it.
 */
export function keyedDigestOf(key: Uint8Array, value: unknown): string {
  return `${KEYED_DIGEST_PREFIX}${createHmac("sha256", key).update(canonicalJson(value)).digest("hex")}`;
}
