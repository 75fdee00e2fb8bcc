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

  it("does not split decimals, and splits at every line break", () => {
    expect(splitSentences("Pay 1.5 times.\nThen stop").map((s) => s.text)).toEqual(["Pay 1.5 times.", "Then stop"]);
  });

  it("attaches citations that follow the end of a sentence to that sentence", () => {
    expect(splitSentences("One. [a] Two [b]. Three.").map((s) => s.citations)).toEqual([["a"], ["b"], []]);
  });
});
