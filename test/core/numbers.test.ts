// Numeric strings that pad, lengthen or re-script a number are refused however long they are:
// the spelling check reads every character (an earlier version skipped strings over 4096 characters).
import { describe, expect, it } from "vitest";
import { looksNumeric, numericStringProblem } from "../../src/core/numbers.js";

describe("numericStringProblem on long and foreign-script spellings", () => {
  it.each([
    ["4096 zeros, then 1001", `${"0".repeat(4096)}1001`],
    ["1001. then 5000 zeros", `1001.${"0".repeat(5000)}`],
    ["1.001e, 5000 zeros, 3", `1.001e${"0".repeat(5000)}3`],
    ["5000 NEL (U+0085), then 1009", `${"\u0085".repeat(5000)}1009`],
    ["1001 then 1 MB of spaces", `1001${" ".repeat(1 << 20)}`],
    ["1001 then 5000 no-break spaces", `1001${"\u00a0".repeat(5000)}`],
    ["Arabic-Indic digits", "١٠٠٩"],
    ["Extended Arabic-Indic digits", "۱۰۰۹"],
    ["Devanagari digits", "१००९"],
    ["mixed scripts", "10٠9"],
  ])("refuses %s", (_name, s) => {
    expect(looksNumeric(s)).toBe(true);
    expect(numericStringProblem(s)?.code).toBe("number_spelling");
  });

  it("binds a long string that is text, and the canonical spelling", () => {
    expect(numericStringProblem(`order-${"0".repeat(5000)}`)).toBeNull();
    expect(numericStringProblem("x".repeat(10_000))).toBeNull();
    expect(numericStringProblem("1009")).toBeNull();
  });
});
