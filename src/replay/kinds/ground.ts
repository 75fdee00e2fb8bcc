/**
 * Case kind `ground`: a question over a workspace folder, answered with `groundQuestion`; `want`
 * is matched against the `GroundedResult` with `compareWant`.
 * @module
 */
import { resolve } from "node:path";
import { TesseraError } from "../../platform/errors.js";
import type { CaseKindRunner } from "../types.js";
import { compareWant } from "../want.js";

const KEYS = new Set(["note", "kind", "want", "workspace", "question"]);

/** Runs `cases/ground/*.yaml`: `workspace: <dir>` (relative to the case), `question:`, `want:`. */
export const groundKind: CaseKindRunner = {
  kind: "ground",
  async run(doc, ctx) {
    for (const key of Object.keys(doc)) {
      if (!KEYS.has(key))
        throw new TesseraError(
          "case_invalid",
          `unknown key \`${key}\` (a ground case has workspace, question, want)`,
          key,
        );
    }
    if (typeof doc.workspace !== "string" || doc.workspace === "")
      throw new TesseraError("case_invalid", "a ground case needs a workspace folder", "workspace");
    if (typeof doc.question !== "string")
      throw new TesseraError("case_invalid", "a ground case needs a question", "question");
    const [{ openWorkspace }, { groundQuestion }] = await Promise.all([
      import("../../evidence/index.js"),
      import("../../answers/index.js"),
    ]);
    const ws = await openWorkspace(resolve(ctx.dir, doc.workspace));
    try {
      const got = groundQuestion(ws, doc.question);
      const failures = compareWant(doc.want, got);
      return { passed: failures.length === 0, failures, got };
    } finally {
      ws.close();
    }
  },
};
