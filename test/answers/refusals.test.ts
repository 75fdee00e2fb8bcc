import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { groundQuestion } from "../../src/answers/index.js";
import { openWorkspace, type Workspace } from "../../src/evidence/index.js";
import { copyExample } from "../evidence/helpers.js";

let ws: Workspace;
beforeAll(async () => {
  ws = await openWorkspace(copyExample());
});
afterAll(() => ws.close());

describe("refusals", () => {
  it.each([
    [
      "a passed run",
      "why did run 7002 fail?",
      "rca",
      "run 7002 did not fail",
      "run 7002 did not fail (conclusion: success); there is no failure to analyse",
    ],
    [
      "a cancelled run",
      "why did run 7013 fail?",
      "rca",
      "run 7013 did not fail",
      "run 7013 did not fail (conclusion: cancelled); there is no failure to analyse",
    ],
    [
      "an unknown run",
      "why did run 424242 fail?",
      "rca",
      "run 424242 is unknown",
      "run 424242 is not in the workspace",
    ],
    [
      "no run named",
      "why did the build fail?",
      "none",
      "no run or change named",
      "out of scope: no run or change named; name a run (`run <id>`) or a change (`PR <n>`)",
    ],
    [
      "an out-of-scope question",
      "write me a poem about kubernetes",
      "none",
      "no run or change named",
      "out of scope: no run or change named; name a run (`run <id>`) or a change (`PR <n>`)",
    ],
    ["an unknown PR", "summarize PR 4711", "summary", "PR 4711 is unknown", "PR 4711 is not in the workspace"],
    [
      "an unknown commit",
      "summarize commit deadbeefcafe",
      "summary",
      "commit deadbeefcafe is unknown",
      "commit deadbeefcafe is not in the workspace",
    ],
  ])("%s", (_name, question, kind, reason, refusal) => {
    const r = groundQuestion(ws, question);
    expect(r).toEqual({
      domain: "ci",
      question,
      route: { kind, reason },
      grounded: false,
      refused: true,
      refusal,
      claims: [],
      all_verified: false,
    });
    expect(Object.keys(r)).toEqual([
      "domain",
      "question",
      "route",
      "grounded",
      "refused",
      "refusal",
      "claims",
      "all_verified",
    ]);
  });
});

describe("contract shape", () => {
  it("keeps the key order of specs/json-shapes.md for results, claims, support and locators", () => {
    const r = groundQuestion(ws, "why did run 7001 fail?");
    expect(Object.keys(r)).toEqual([
      "domain",
      "question",
      "route",
      "grounded",
      "refused",
      "refusal",
      "claims",
      "all_verified",
      "signature",
    ]);
    expect(Object.keys(r.route)).toEqual(["kind", "reason"]);
    expect(Object.keys(r.signature!)).toEqual(["id", "rule", "score", "basis", "reasons"]);
    const log = r.claims.find((c) => c.role === "log")!;
    expect(Object.keys(log)).toEqual(["role", "text", "verified", "shape", "support"]);
    expect(Object.keys(log.support[0]!)).toEqual(["id", "source", "locator", "text"]);
    expect(log.support[0]).toEqual({
      id: "log:7001:9",
      source: "logs/7001.log",
      locator: {
        kind: "log-line",
        parts: [
          ["run", "7001"],
          ["job", "typecheck"],
          ["step", "Run npm run typecheck"],
          ["line", "9"],
        ],
        render: "log-line run=7001 job=typecheck step=Run npm run typecheck line=9",
      },
      text: "src/cart/total.ts(27,9): error TS2322: Type 'string' is not assignable to type 'Money'.",
    });
  });
});
