/**
 * A source block as an adapter uses it: the policy schema's own block for the kind
 * (src/checks/source-config.ts), with its defaults. A block from a loaded policy is already that;
 * one written by hand (an embedding host, a test) gets its defaults and its errors from the same
 * schema, so no adapter reads an untyped field or keeps a default of its own.
 * @module
 */
import { SOURCE_SCHEMAS, type SourceConfigOf } from "../checks/source-config.js";
import type { SourceInit } from "../checks/source.js";
import type { SourceKindName } from "../checks/source-kinds.js";
import { TesseraError } from "../platform/errors.js";

/** The validated block of `init`, defaults applied; `policy_invalid` at `sources.<name>.<key>` otherwise. */
export function sourceConfig<K extends SourceKindName>(kind: K, init: SourceInit<K>): SourceConfigOf<K> {
  const parsed = SOURCE_SCHEMAS[kind].safeParse({ ...init.config, kind });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = ["sources", init.name, ...(issue?.path ?? []).map(String)].join(".");
    throw new TesseraError("policy_invalid", issue?.message ?? "invalid source block", path);
  }
  return parsed.data as SourceConfigOf<K>;
}
