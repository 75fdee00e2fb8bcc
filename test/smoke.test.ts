import { describe, expect, it } from "vitest";
import { contains, decideGrounding, normalize } from "../src/index.js";

describe("package root", () => {
  it("exposes the core verifier", () => {
    expect(normalize("Crème  Brûlée!")).toBe("creme brulee");
    expect(contains("up to $5", "up to $50")).toBe(false);
    expect(decideGrounding(null).state).toBe("unavailable");
  });
});
