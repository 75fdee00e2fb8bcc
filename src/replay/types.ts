/**
 * One case format for every verdict kind (specs/cases.md). The loader in this folder reads
 * `cases/<kind>/<slug>.yaml`, checks the common keys and hands the document to its kind's runner.
 * @module
 */

/** A parsed case document; kind-specific keys are validated by the kind's runner. */
export interface CaseDoc {
  readonly note: string;
  readonly kind: string;
  readonly want: unknown;
  readonly [key: string]: unknown;
}

/** Where a case lives, for resolving its relative paths. */
export interface CaseContext {
  /** Absolute path of the case file. */
  readonly file: string;
  /** Absolute path of the folder holding it. */
  readonly dir: string;
  /** Environment for `${VAR}` interpolation (databases URLs of live cases). */
  readonly env: Readonly<Record<string, string | undefined>>;
}

/** A case's result: passed, or the differences between `want` and what was got. */
export interface CaseOutcome {
  readonly passed: boolean;
  /** One line per difference, e.g. `decision: want \`block\`, got \`allow\``. */
  readonly failures: readonly string[];
  /** What the verdict path returned, for `--json` reports. */
  readonly got?: unknown;
  /** Set when the case is skipped (e.g. a live-database case without its URL); never in CI. */
  readonly skipped?: string;
}

/** Runs the cases of one kind. Throws `TesseraError` for a malformed case. */
export interface CaseKindRunner {
  readonly kind: string;
  run(doc: CaseDoc, ctx: CaseContext): Promise<CaseOutcome>;
}
