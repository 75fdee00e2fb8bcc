// Property: over every run and every PR of the example workspace, and over arbitrary questions,
// every claim of every GroundedResult verifies against the records it cites, and refusals carry
// no claims.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groundQuestion } from "../../src/answers/index.js";
import { type EvidenceRecord, isSupported } from "../../src/core/index.js";
import { openWorkspace, type Workspace } from "../../src/evidence/index.js";
import type { GroundedResult } from "../../src/answers/types.js";
import { copyExample } from "../evidence/helpers.js";

let ws: Workspace;
beforeAll(async () => {
  ws = await openWorkspace(copyExample());
});
afterAll(() => ws.close());

/** Re-check a result from the store itself: each cited record exists with the same text, and isSupported agrees. */
function recheck(r: GroundedResult): void {
  if (r.refused) {
    expect(r.claims).toEqual([]);
    expect(r.grounded).toBe(false);
    return;
  }
  expect(r.claims.length).toBeGreaterThan(0);
  for (const c of r.claims) {
    expect(c.support.length).toBeGreaterThan(0);
    const records: EvidenceRecord[] = c.support.map((s) => {
      const rec = ws.getRecord(s.id);
      expect(rec, s.id).toBeDefined();
      expect(rec!.text).toBe(s.text);
      expect(rec!.locator.parts).toEqual(s.locator.parts);
      return rec!;
    });
    const v = isSupported({ text: c.text, support: records });
    expect(v.supported, `${c.role}: ${c.text}`).toBe(true);
    expect(c.verified).toBe(true);
    expect(c.shape).toBe(v.shape);
  }
  expect(r.all_verified).toBe(true);
  expect(r.grounded).toBe(true);
}

describe("every claim over the example workspace verifies", () => {
  it("for every run (failed runs grounded, others refused)", () => {
    const runs = ws.listRuns();
    expect(runs.length).toBeGreaterThanOrEqual(10);
    let grounded = 0;
    for (const run of runs) {
      const r = groundQuestion(ws, `why did run ${run.id} fail?`);
      recheck(r);
      if (run.conclusion === "failure") {
        grounded++;
        expect(r.claims.map((c) => c.role)).toContain("failure_signature");
        const sig = r.claims.find((c) => c.role === "failure_signature")!;
        expect(sig.text).not.toMatch(/Process completed with exit code/);
      } else {
        expect(r.refused).toBe(true);
      }
    }
    expect(grounded).toBeGreaterThanOrEqual(8);
  });

  it("for every PR", () => {
    const prs = ws.listPrs();
    expect(prs.length).toBeGreaterThanOrEqual(6);
    for (const pr of prs) {
      const n = pr.id.slice(3);
      const r = groundQuestion(ws, `summarize PR ${n}`);
      recheck(r);
      expect(r.claims[0]!.role).toBe("pull_request");
      expect(r.claims.filter((c) => c.role === "code_change").length).toBeGreaterThan(0);
    }
  });

  it("for every commit", () => {
    const commits = ws.listCommits();
    expect(commits.length).toBeGreaterThanOrEqual(1);
    for (const c of commits) {
      const r = groundQuestion(ws, `summarize commit ${c.id.slice("commit:".length)}`);
      recheck(r);
      expect(r.claims[0]!.support[0]!.id).toBe(c.id);
    }
  });

  it("the recurring failure, its ticket and its fix are all found for run 7010", () => {
    const roles = groundQuestion(ws, "why did run 7010 fail?").claims.map((c) => c.role);
    expect(roles).toEqual(expect.arrayContaining(["prior_occurrence", "documented_incident", "resolving_change"]));
  });

  it("for arbitrary questions, including ones that name random runs and PRs", () => {
    const ids = [...ws.listRuns().map((r) => r.id), "1", "99999"];
    const question = fc.oneof(
      fc.string(),
      fc
        .tuple(
          fc.constantFrom("why did run ", "what broke in #", "PR ", "pull request #", "summarize PR-", ""),
          fc.constantFrom(...ids, "41", "47"),
          fc.string(),
        )
        .map(([a, b, c]) => `${a}${b}${c}`),
    );
    fc.assert(
      fc.property(question, (q) => {
        const r = groundQuestion(ws, q);
        expect(["rca", "summary", "none"]).toContain(r.route.kind);
        expect(r.question).toBe(q);
        recheck(r);
      }),
      { numRuns: 300 },
    );
  });

  it("a mutated claim does not verify (the check can fail)", () => {
    const r = groundQuestion(ws, "why did run 7010 fail?");
    for (const c of r.claims) {
      const records = c.support.map((s) => ws.getRecord(s.id)!);
      expect(isSupported({ text: `${c.text} zzqx`, support: records }).supported).toBe(false);
    }
  });
});
