// Pins every row of specs/question-routing.md.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { routeQuestion } from "../../src/answers/index.js";

const spec = readFileSync(new URL("../../specs/question-routing.md", import.meta.url), "utf8");
const lines = spec.split("\n");
const start = lines.findIndex((l) => l.startsWith("| question | route | names |"));
const rows: string[][] = [];
for (const l of lines.slice(start + 2)) {
  if (!l.startsWith("|")) break;
  rows.push(
    l
      .slice(1, -1)
      .split("|")
      .map((c) => c.trim()),
  );
}

describe("specs/question-routing.md", () => {
  it("has its table", () => expect(rows.length).toBeGreaterThanOrEqual(20));
  it.each(rows.map((r) => [r[0]!, r[1]!, r[2]!]))("%s → %s %s", (question, route, names) => {
    const got = routeQuestion(question);
    if (route === "rca") expect(got).toEqual({ kind: "rca", run: names });
    else if (route === "summary") {
      const [kind, id] = names.split(" ");
      expect(got).toEqual({ kind: "summary", change: { kind, id } });
    } else expect(got).toEqual({ kind: "none", reason: names });
  });
});
