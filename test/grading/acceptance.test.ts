import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { gradeAnswerAudited } from "../../src/grading/grade.js";
import { loadCase } from "../../src/replay/load.js";
import { prepareGradeCase } from "../../src/replay/kinds/grade.js";
import { runCaseFile } from "../../src/replay/run.js";

// The acceptance set of specs/grading.md: each case's `want.state` is the ground truth. False-supported
// (an answer that is not supported graded `supported`) and false-unsupported (a supported answer
// graded `unsupported`) are counted separately; an average would hide the more dangerous error.
const DIR = join(import.meta.dirname, "../../cases/grade");
const SITUATIONS = [
  "supported",
  "contradicted",
  "incomplete",
  "irrelevant-retrieval",
  "conflicting-sources",
  "forbidden-source",
  "evaluator-timeout",
  "malformed-result",
  "changed-revision",
] as const;
const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
  .map((f) => join(DIR, f));

describe("grade acceptance set", () => {
  it("covers each of the seed's nine situations, several with more than one evaluator", () => {
    for (const s of SITUATIONS)
      expect(
        files.filter((f) => f.split("/").pop()!.startsWith(`${s}-`)),
        s,
      ).not.toHaveLength(0);
    for (const f of files)
      expect(
        SITUATIONS.some((s) => f.split("/").pop()!.startsWith(`${s}-`)),
        f,
      ).toBe(true);
  });

  it("passes every case through the one case loader", async () => {
    for (const f of files) {
      const r = await runCaseFile(f, {});
      expect(r.status, `${f}: ${r.failures.join("; ")}`).toBe("passed");
    }
  });

  it("reports false-supported and false-unsupported separately; false-supported is 0", async () => {
    let falseSupported = 0;
    let falseUnsupported = 0;
    let falseUnavailable = 0;
    const bySituation: Record<string, { cases: number; evaluators: Set<string> }> = {};
    for (const f of files) {
      const doc = loadCase(f, ["grade"]);
      const truth = (doc.want as { state: string }).state;
      const { input, options } = await prepareGradeCase(doc, dirname(f));
      const got = gradeAnswerAudited(input, options).result;
      if (got.state === "supported" && truth !== "supported") falseSupported++;
      if (got.state === "unsupported" && truth === "supported") falseUnsupported++;
      if (got.state === "unavailable" && truth !== "unavailable") falseUnavailable++;
      const situation = SITUATIONS.find((s) => f.split("/").pop()!.startsWith(`${s}-`))!;
      const entry = (bySituation[situation] ??= { cases: 0, evaluators: new Set() });
      entry.cases++;
      entry.evaluators.add(got.evaluator.name);
    }
    const lines = SITUATIONS.map(
      (s) => `  ${s.padEnd(22)} ${bySituation[s]!.cases} cases  ${[...bySituation[s]!.evaluators].sort().join(", ")}`,
    );
    console.log(
      `grade acceptance set: ${files.length} cases\n${lines.join("\n")}\n` +
        `false-supported: ${falseSupported}  false-unsupported: ${falseUnsupported}  (unavailable where a decision was expected: ${falseUnavailable})`,
    );
    expect(falseSupported).toBe(0);
    expect(falseUnsupported).toBe(0);
    expect(falseUnavailable).toBe(0);
  });
});
