import { afterEach, describe, expect, it, vi } from "vitest";
import { withDeadline } from "../../src/grading/deadline.js";
import { gradeAnswer } from "../../src/grading/grade.js";

const base = {
  request_id: "r",
  query: "q",
  answer: "Chairs up to USD 500.",
  evidence: [{ id: "d", revision: "1", text: "Chairs up to USD 500." }],
};

describe("withDeadline", () => {
  afterEach(() => vi.useRealTimers());

  it("turns a call that misses its deadline into an evaluator timeout", async () => {
    vi.useFakeTimers();
    const pending = withDeadline(() => new Promise(() => {}), 2000);
    await vi.advanceTimersByTimeAsync(2000);
    const outcome = await pending;
    expect(outcome).toEqual({ result: null, timed_out: true });
    expect(gradeAnswer({ ...base, evaluator: { name: "generic" }, ...outcome })).toMatchObject({
      state: "unavailable",
      reason: "evaluator_timeout",
    });
  });

  it("passes a result that arrives in time", async () => {
    const outcome = await withDeadline(async () => ({ score: 0.9, threshold: 0.7, unsupported_detected: false }), 2000);
    expect(outcome.timed_out).toBe(false);
    expect(gradeAnswer({ ...base, evaluator: { name: "generic", threshold: 0.7 }, ...outcome }).state).toBe(
      "supported",
    );
  });

  it("turns a failed call into no result, which is unavailable", async () => {
    const outcome = await withDeadline(async () => {
      throw new Error("503");
    }, 2000);
    expect(outcome).toEqual({ result: null, timed_out: false });
    expect(gradeAnswer({ ...base, evaluator: { name: "generic" }, ...outcome }).reason).toBe("missing_result");
  });
});
