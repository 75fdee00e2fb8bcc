// The single-timer deadline set behind every network request's timeout.
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { Deadlines } from "../../src/checks/deadlines.js";

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

describe("Deadlines", () => {
  it("expires entries in deadline order, re-arming for an earlier one", () => {
    const d = new Deadlines();
    const fired: string[] = [];
    d.add(500, () => fired.push("slow"));
    d.add(20, () => fired.push("fast"));
    vi.advanceTimersByTime(19);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(2);
    expect(fired).toEqual(["fast"]);
    vi.advanceTimersByTime(500);
    expect(fired).toEqual(["fast", "slow"]);
  });

  it("never expires a removed entry, and keeps serving later ones", () => {
    const d = new Deadlines();
    const fired: string[] = [];
    const a = d.add(10, () => fired.push("a"));
    d.remove(a);
    vi.advanceTimersByTime(50);
    d.add(10, () => fired.push("b"));
    vi.advanceTimersByTime(11);
    expect(fired).toEqual(["b"]);
  });

  it("expires each entry once, and nothing after clear", () => {
    const d = new Deadlines();
    let n = 0;
    d.add(5, () => n++);
    vi.advanceTimersByTime(100);
    d.add(5, () => n++);
    d.clear();
    vi.advanceTimersByTime(100);
    expect(n).toBe(1);
  });
});
