/**
 * The source kinds a policy may name and the default per-request timeout: the facts the policy
 * schema, the Source interface and the engine all need, in a leaf the engine loads without zod.
 * @module
 */

/** Every source kind a policy may name. */
export const SOURCE_KIND_NAMES = ["sqlite", "postgres", "mysql", "http", "mcp"] as const;
/** A source kind. */
export type SourceKindName = (typeof SOURCE_KIND_NAMES)[number];
/** The source kinds whose requests are SQL. */
export type SqlKindName = "sqlite" | "postgres" | "mysql";

/** Whether a source of `kind` takes a SQL `query`. */
export function isSqlKind(kind: SourceKindName): kind is SqlKindName {
  return kind === "sqlite" || kind === "postgres" || kind === "mysql";
}

/** Default per-request timeout of every source, in milliseconds; the policy schema applies it. */
export const DEFAULT_TIMEOUT_MS = 5000;
