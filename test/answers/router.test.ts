import { describe, expect, it } from "vitest";
import { routeQuestion } from "../../src/answers/index.js";

describe("routeQuestion", () => {
  it.each([
    ["why did run 7003 fail?", { kind: "rca", run: "7003" }],
    ["Run #7003 broke", { kind: "rca", run: "7003" }],
    ["what happened in #7003", { kind: "rca", run: "7003" }],
    ["root cause of 7003", { kind: "rca", run: "7003" }],
    ["explain run id 0042", { kind: "rca", run: "42" }],
    ["why did run 7003 fail on 2026-11-04 at 14:30?", { kind: "rca", run: "7003" }],
    ["summarize PR 45", { kind: "summary", change: { kind: "pr", id: "45" } }],
    ["what does pr-45 change", { kind: "summary", change: { kind: "pr", id: "45" } }],
    ["PR #45 please", { kind: "summary", change: { kind: "pr", id: "45" } }],
    ["what changed in pull request 45?", { kind: "summary", change: { kind: "pr", id: "45" } }],
    ["pull request #45", { kind: "summary", change: { kind: "pr", id: "45" } }],
    ["#45 PR: what is in it?", { kind: "summary", change: { kind: "pr", id: "45" } }],
    ["the PR #45 mentions 2026", { kind: "summary", change: { kind: "pr", id: "45" } }],
    ["summarize commit 4be1c07d9a2f", { kind: "summary", change: { kind: "commit", id: "4be1c07d9a2f" } }],
  ])("%s", (q, want) => {
    expect(routeQuestion(q)).toEqual(want);
  });

  it.each([
    ["what is the capital of France?", "no run or change named"],
    ["", "no run or change named"],
    ["upgrade to v1.2.3", "no run or change named"],
    ["did PR 47 fix run 7010?", "both a run and a change named"],
    ["compare run 7004 and run 7010", "more than one run named"],
    ["compare 7004 with 7010", "more than one run named"],
    ["PR 41 or PR 42?", "more than one change named"],
  ])("refuses %j: %s", (q, reason) => {
    expect(routeQuestion(q)).toEqual({ kind: "none", reason });
  });
});
