import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { evidenceDigest } from "../../src/grading/bundle.js";
import { gradeAnswer } from "../../src/grading/grade.js";
import { splitSentences } from "../../src/grading/sentences.js";
import type { EvaluatorName } from "../../src/grading/types.js";

// The example tables of specs/grading.md, read from the spec itself: a change to either is a visible diff.
const SPEC = readFileSync(join(import.meta.dirname, "../../specs/grading.md"), "utf8");

function table(heading: string): string[][] {
  const lines = SPEC.split("\n");
  const start = lines.findIndex((l) => l.trim() === heading);
  if (start < 0) throw new Error(`no heading ${heading}`);
  const rows: string[][] = [];
  let i = start + 1;
  while (i < lines.length && !lines[i]!.startsWith("|")) i++;
  for (i += 2; i < lines.length && lines[i]!.startsWith("|"); i++)
    rows.push(
      lines[i]!.slice(1, -1)
        .split("|")
        .map((c) => c.trim()),
    ); // cells hold no pipes
  return rows;
}
const code = (cell: string) => cell.replace(/^`|`$/g, "");

describe("specs/grading.md examples", () => {
  it("digests", () => {
    const rows = table("## Evidence bundle and digest");
    expect(rows).toHaveLength(2);
    for (const [docs, digest] of rows) expect(evidenceDigest(JSON.parse(code(docs!)))).toBe(code(digest!));
  });

  it("sentence examples", () => {
    const rows = table("### Sentence examples");
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const [answer, citations] of rows) {
      const text = code(answer!).replace(/\\n/g, "\n");
      expect(
        splitSentences(text).map((s) => s.citations),
        text,
      ).toEqual(JSON.parse(code(citations!)));
    }
  });

  it("decision examples", () => {
    const rows = table("### Decision examples");
    expect(rows.length).toBeGreaterThanOrEqual(13);
    for (const [evaluator, result, app, state, reason, score, threshold] of rows) {
      const r = gradeAnswer({
        request_id: "r",
        query: "q",
        answer: "a",
        evidence: [],
        evaluator: { name: evaluator as EvaluatorName, ...(app === "" ? {} : { threshold: Number(app) }) },
        result: JSON.parse(code(result!)),
      });
      const num = (c: string | undefined) => (c === "" ? null : Number(c));
      expect({ state: r.state, reason: r.reason, score: r.score, threshold: r.threshold }, result).toEqual({
        state,
        reason,
        score: num(score),
        threshold: num(threshold),
      });
    }
  });

  it("lists every reason the code can give", () => {
    const reasons = table("## The grading record").map((r) => code(r[0]!));
    expect(reasons.sort()).toEqual(
      [
        "support_rule_passed",
        "support_rule_failed",
        "missing_result",
        "invalid_score",
        "invalid_threshold",
        "invalid_finding",
        "invalid_response",
        "missing_grounding_filter",
        "evaluator_timeout",
        "evidence_mismatch",
        "unknown_evaluator",
      ].sort(),
    );
  });
});
