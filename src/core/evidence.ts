/**
 * Evidence records and claims (specs/claim-grammar.md).
 * @module
 */

/** Where a record came from, as ordered name/value parts (e.g. `[["run", "42"], ["line", "17"]]`). */
export interface Locator {
  /** What kind of place: `run`, `log-line`, `pr`, `diff-hunk`, `ticket`, ... */
  readonly kind: string;
  /** Name/value pairs that pin the place down, in a fixed order. */
  readonly parts: readonly (readonly [string, string])[];
}

/** One piece of trusted evidence with a stable id. */
export interface EvidenceRecord {
  /** Stable id, cited by claims. */
  readonly id: string;
  /** Where the record was read from (a workspace file, a source name). */
  readonly source: string;
  /** The place within the source. */
  readonly locator: Locator;
  /** The evidence text claims are checked against. */
  readonly text: string;
  /** The revision of the underlying document, when it has one. */
  readonly revision?: string;
}

/** A statement with the records cited for it; `support` is never empty for a well-formed claim. */
export interface Claim {
  /** What the claim says. */
  readonly text: string;
  /** The records cited for it; the claim is checked against these only. */
  readonly support: readonly EvidenceRecord[];
}

/** Render a locator as `kind part=value part=value` for people. */
export function renderLocator(locator: Locator): string {
  const parts = locator.parts.map(([k, v]) => `${k}=${v}`);
  return [locator.kind, ...parts].join(" ");
}
