// The framework approval memo: an approval for a call id runs the call asked under that id, once,
// and only with the arguments it was asked with; two different calls under one id run neither.
import { describe, expect, it } from "vitest";
import { ApprovalMemo } from "../../src/adapters/guard.js";

describe("ApprovalMemo", () => {
  it("runs the asked call once, with its own arguments only", () => {
    const memo = new ApprovalMemo();
    memo.ask("call-1", "sha:C");
    expect(memo.use("call-1", "sha:D")).toBe(false);
    memo.ask("call-2", "sha:C");
    expect(memo.use("call-2", "sha:C")).toBe(true);
    expect(memo.use("call-2", "sha:C")).toBe(false);
  });

  it("runs neither of two different calls held under one id", () => {
    const memo = new ApprovalMemo();
    memo.ask("call-1", "sha:C");
    memo.ask("call-1", "sha:D");
    expect(memo.use("call-1", "sha:D")).toBe(false);
    const again = new ApprovalMemo();
    again.ask("call-1", "sha:C");
    again.ask("call-1", "sha:D");
    expect(again.use("call-1", "sha:C")).toBe(false);
  });

  it("keeps a call asked twice with the same arguments", () => {
    const memo = new ApprovalMemo();
    memo.ask("call-1", "sha:C");
    memo.ask("call-1", "sha:C");
    expect(memo.use("call-1", "sha:C")).toBe(true);
  });
});
