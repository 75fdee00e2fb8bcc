import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitSentences } from "../../src/grading/sentences.js";

const fixture = JSON.parse(
  readFileSync(join(import.meta.dirname, "../fixtures/evaluators/builtin/1/sentences.json"), "utf8"),
) as {
  cases: { answer: string; sentences: { text: string; citations: string[] }[] }[];
};

describe("splitSentences (builtin 1)", () => {
  for (const c of fixture.cases) {
    it(JSON.stringify(c.answer), () => {
      expect(splitSentences(c.answer).map((s) => ({ text: s.text, citations: s.citations }))).toEqual(c.sentences);
    });
  }

  it("does not split decimals, and ends a sentence at its terminator before a line break", () => {
    expect(splitSentences("Pay 1.5 times.\nThen stop").map((s) => s.text)).toEqual(["Pay 1.5 times.", "Then stop"]);
  });

  it("attaches citations that follow the end of a sentence to that sentence", () => {
    expect(splitSentences("One. [a] Two [b]. Three.").map((s) => s.citations)).toEqual([["a"], ["b"], []]);
  });

  const texts = (answer: string) => splitSentences(answer).map((s) => s.text);

  it("never ends a sentence at an ellipsis, unless a `!` or `?` follows it", () => {
    expect(texts("Desks are... reimbursed up to USD 500... with manager approval [hr].")).toEqual([
      "Desks are... reimbursed up to USD 500... with manager approval .",
    ]);
    expect(texts("Desks are\u2026 Reimbursed.")).toEqual(["Desks are\u2026 Reimbursed."]);
    expect(texts("Really...? Yes.")).toEqual(["Really...?", "Yes."]);
  });

  it("does not split at a single line break inside a paragraph", () => {
    expect(texts("Desks are\nreimbursed up to USD 500 [hr].")).toEqual(["Desks are reimbursed up to USD 500 ."]);
    expect(texts("- Desks are\n  reimbursed")).toEqual(["- Desks are   reimbursed"]);
  });

  it("splits at a blank line, a list item, a heading, a quote and a table row", () => {
    expect(texts("One\n\nTwo")).toEqual(["One", "Two"]);
    expect(texts("One\n- two\n* three\n2. four")).toEqual(["One", "- two", "* three", "2. four"]);
    expect(texts("# Title\nBody text")).toEqual(["# Title", "Body text"]);
    expect(texts("One\n> two")).toEqual(["One", "> two"]);
    expect(texts("One\n| a | b |\nTwo")).toEqual(["One", "| a | b |", "Two"]);
  });

  it("ends a sentence at `.` `!` `?` only before what a sentence can start with, or the end", () => {
    expect(texts("Desks are. reimbursed up to USD 500.")).toEqual(["Desks are. reimbursed up to USD 500."]);
    expect(texts("U.S. staff only.")).toEqual(["U.S. staff only."]);
    expect(texts('One. Two! 3 items? "Four" it says. (Five) here. *Six* too. - seven')).toEqual([
      "One.",
      "Two!",
      "3 items?",
      '"Four" it says.',
      "(Five) here.",
      "*Six* too.",
      "- seven",
    ]);
  });
});
