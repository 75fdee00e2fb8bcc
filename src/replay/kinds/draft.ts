/**
 * Case kind `draft`: an action kind and a grounding — a question over a workspace folder, or a saved
 * `GroundedResult` (a JSON file beside the case, or inline) — drafted with `draftAction`; `want` is
 * matched against the proposal. `want_error` instead names the code of an expected error.
 * @module
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { draftAction, parseGroundedResult } from "../../actions/index.js";
import { parseErrorLine, parseJson } from "../../platform/json.js";
import type { GroundedResult } from "../../answers/types.js";
import type { EvidenceRecord } from "../../core/index.js";
import { TesseraError } from "../../platform/errors.js";
import type { CaseDoc, CaseKindRunner, CaseOutcome } from "../types.js";
import { compareWant } from "../want.js";

const KEYS = new Set(["note", "kind", "want", "action", "workspace", "question", "grounding"]);

/** A JSON or YAML-inline value, or a JSON file beside the case when given as a string. */
export function readValue(value: unknown, dir: string, key: string): unknown {
  if (typeof value !== "string") return value;
  const file = resolve(dir, value);
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new TesseraError("case_invalid", `no such file \`${value}\``, key);
  }
  try {
    return parseJson(text);
  } catch (err) {
    throw new TesseraError("case_invalid", `\`${value}\`: invalid json: ${parseErrorLine(err)}`, key);
  }
}

/** An opened workspace as cases use it. */
export interface CaseWorkspace {
  ground(question: string): GroundedResult;
  getRecord(id: string): EvidenceRecord | undefined;
  close(): void;
}

/** Open the workspace folder `dir` through the evidence and answer layers. */
export async function openWorkspaceForCase(dir: string): Promise<CaseWorkspace> {
  const [{ openWorkspace }, { groundQuestion }] = await Promise.all([
    import("../../evidence/index.js"),
    import("../../answers/index.js"),
  ]);
  const ws = await openWorkspace(dir);
  return { ground: (q) => groundQuestion(ws, q), getRecord: (id) => ws.getRecord(id), close: () => ws.close() };
}

/** Rethrow a validation error with the case key in front of its path. */
export function under<T>(key: string, f: () => T): T {
  try {
    return f();
  } catch (err) {
    if (err instanceof TesseraError) throw new TesseraError("case_invalid", err.message, key);
    throw err;
  }
}

/** The grounding a case names: `workspace` + `question`, or `grounding`. */
export async function caseGrounding(doc: CaseDoc, dir: string): Promise<GroundedResult> {
  if (doc.grounding !== undefined) {
    if (doc.workspace !== undefined || doc.question !== undefined) {
      throw new TesseraError("case_invalid", "give `grounding` or `workspace` with `question`, not both", "grounding");
    }
    const raw = readValue(doc.grounding, dir, "grounding");
    return under("grounding", () => parseGroundedResult(raw));
  }
  if (typeof doc.workspace !== "string")
    throw new TesseraError("case_invalid", "expected a workspace folder (or `grounding`)", "workspace");
  if (typeof doc.question !== "string" || doc.question.trim() === "")
    throw new TesseraError("case_invalid", "expected a question", "question");
  const ws = await openWorkspaceForCase(resolve(dir, doc.workspace));
  try {
    return ws.ground(doc.question);
  } finally {
    ws.close();
  }
}

/** The `draft` case kind. */
export const draftKind: CaseKindRunner = {
  kind: "draft",
  async run(doc, ctx): Promise<CaseOutcome> {
    for (const k of Object.keys(doc))
      if (!KEYS.has(k)) throw new TesseraError("case_invalid", `unknown key \`${k}\` in a draft case`, k);
    if (typeof doc.action !== "string") throw new TesseraError("case_invalid", "expected an action kind", "action");
    const grounding = await caseGrounding(doc, ctx.dir);
    const want = doc.want as Record<string, unknown> | null;
    if (want !== null && typeof want === "object" && Object.hasOwn(want, "error")) {
      try {
        draftAction(doc.action, grounding);
      } catch (err) {
        const code = err instanceof TesseraError ? err.code : "internal";
        const failures = compareWant(want.error, code, "want.error");
        return { passed: failures.length === 0, failures, got: { error: code } };
      }
      return { passed: false, failures: ["want.error: want an error, got a proposal"] };
    }
    const proposal = draftAction(doc.action, grounding);
    const failures = compareWant(doc.want, proposal);
    return { passed: failures.length === 0, failures, got: proposal };
  },
};
