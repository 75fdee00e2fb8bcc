/**
 * Evidence records and claims (DESIGN.md §4).
 * @module
 */

/** Where a record came from, as ordered name/value parts (e.g. `[["run", "42"], ["line", "17"]]`). */
export interface Locator {
  readonly kind: string;
  readonly parts: readonly (readonly [string, string])[];
}

/** One piece of trusted evidence with a stable id. */
export interface EvidenceRecord {
  readonly id: string;
  readonly source: string;
  readonly locator: Locator;
  readonly text: string;
  readonly revision?: string;
}

/** A statement with the records cited for it; `support` is never empty for a well-formed claim. */
export interface Claim {
  readonly text: string;
  readonly support: readonly EvidenceRecord[];
}

/** Render a locator as `kind part=value part=value` for people. */
export function renderLocator(locator: Locator): string {
  const parts = locator.parts.map(([k, v]) => `${k}=${v}`);
  return [locator.kind, ...parts].join(" ");
}
