import { dirname } from "node:path";
import { TesseraError } from "../platform/errors.js";
import { loadCase } from "./load.js";
import { CASE_KINDS } from "./registry.js";
import type { CaseOutcome } from "./types.js";

/** One case's report: its outcome, or the error that made it unrunnable. */
export interface CaseReport {
  readonly file: string;
  readonly kind: string | null;
  readonly note: string | null;
  readonly status: "passed" | "failed" | "skipped" | "invalid";
  readonly failures: readonly string[];
  readonly skipped?: string;
}

/** Run one case file; never throws — a malformed case is reported as `invalid`. */
export async function runCaseFile(
  file: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<CaseReport> {
  let doc;
  try {
    doc = loadCase(file, Object.keys(CASE_KINDS));
  } catch (err) {
    return { file, kind: null, note: null, status: "invalid", failures: [errorText(err)] };
  }
  try {
    const runner = await CASE_KINDS[doc.kind]!();
    const outcome: CaseOutcome = await runner.run(doc, { file, dir: dirname(file), env });
    if (outcome.skipped !== undefined)
      return { file, kind: doc.kind, note: doc.note, status: "skipped", failures: [], skipped: outcome.skipped };
    return {
      file,
      kind: doc.kind,
      note: doc.note,
      status: outcome.passed ? "passed" : "failed",
      failures: outcome.failures,
    };
  } catch (err) {
    return { file, kind: doc.kind, note: doc.note, status: "invalid", failures: [errorText(err)] };
  }
}

/** Run case files in order, reporting each as it finishes. */
export async function runCases(
  files: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  onReport?: (report: CaseReport, index: number) => void,
): Promise<CaseReport[]> {
  const reports: CaseReport[] = [];
  for (const [i, file] of files.entries()) {
    const report = await runCaseFile(file, env);
    reports.push(report);
    onReport?.(report, i);
  }
  return reports;
}

function errorText(err: unknown): string {
  if (err instanceof TesseraError) return err.message;
  return `internal error: ${err instanceof Error ? err.message : String(err)}`;
}
