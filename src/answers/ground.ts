/**
 * `groundQuestion` and `ground`: route a question and answer it over a workspace, giving the
 * `GroundedResult` of specs/json-shapes.md. Deterministic: the same workspace and question give the same JSON.
 * @module
 */
import { type Workspace, withWorkspace } from "../evidence/index.js";
import { refused } from "./claims.js";
import { rootCause } from "./rca.js";
import { routeQuestion } from "./router.js";
import { summarizeChange } from "./summary.js";
import type { GroundedResult } from "./types.js";

/**
 * Ground a question over an open workspace: a root-cause analysis for a named failed run, a change
 * summary for a named PR or commit, or a refusal with its reason.
 * @example groundQuestion(ws, "why did run 7003 fail?").claims[0]?.role // "run"
 */
export function groundQuestion(workspace: Workspace, question: string): GroundedResult {
  const target = routeQuestion(question);
  switch (target.kind) {
    case "rca":
      return rootCause(workspace, question, target.run);
    case "summary":
      return summarizeChange(workspace, question, target.change);
    case "none":
      return refused(
        question,
        "none",
        target.reason,
        `out of scope: ${target.reason}; name a run (\`run <id>\`) or a change (\`PR <n>\`)`,
      );
  }
}

/**
 * Ground `question` over the workspace at `workspaceDir`, ingested or refreshed first. The store
 * stays open in this process for the next call, and an unchanged workspace is not re-scanned
 * (`withWorkspace`, adr/0110).
 * @example const result = await ground("examples/ci-workspace", "summarize PR 41");
 */
export async function ground(workspaceDir: string, question: string): Promise<GroundedResult> {
  return withWorkspace(workspaceDir, (ws) => groundQuestion(ws, question));
}
