// Pins every example of specs/failure-signatures.md: the line-class table and the selection table.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { classifyLine, selectSignature } from "../../src/evidence/index.js";

const spec = readFileSync(new URL("../../specs/failure-signatures.md", import.meta.url), "utf8");

/** Cells of a markdown table row; `\|` is a literal bar, ``code`` spans are unwrapped. */
function cells(row: string): string[] {
  const parts = row
    .trim()
    .slice(1, -1)
    .split(/(?<!\\)\|/);
  return parts.map((c) => {
    let t = c.trim().replaceAll("\\|", "|");
    if (t.startsWith("``") && t.endsWith("``") && t.length >= 4) t = t.slice(2, -2);
    else if (t.startsWith("`") && t.endsWith("`") && t.length >= 2) t = t.slice(1, -1);
    return t;
  });
}

function table(header: string): string[][] {
  const lines = spec.split("\n");
  const start = lines.findIndex((l) => l.startsWith(header));
  expect(start, `table ${header}`).toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const l of lines.slice(start + 2)) {
    if (!l.startsWith("|")) break;
    rows.push(cells(l));
  }
  return rows;
}

describe("specs/failure-signatures.md §1 line classes", () => {
  const rows = table("| ecosystem | line | class | rule |");
  it("has examples for every ecosystem the issue names", () => {
    const ecosystems = new Set(rows.map((r) => r[0]));
    for (const e of [
      "TypeScript",
      "npm",
      "vitest",
      "jest",
      "pytest",
      "go",
      "cargo",
      "Maven",
      "Gradle",
      "docker",
      "GitHub",
    ])
      expect(ecosystems.has(e), e).toBe(true);
    expect(rows.length).toBeGreaterThan(60);
  });
  it.each(rows.map((r) => [r[0]!, r[1]!, r[2]!, r[3]!]))("%s: %s → %s %s", (_eco, line, cls, rule) => {
    const got = classifyLine(line);
    if (cls === "—") expect(got).toBeNull();
    else expect(got).toEqual({ tier: cls, rule });
  });
});

describe("specs/failure-signatures.md §2 selection", () => {
  const rows = table("| case | log | signature | basis |");
  it("has the examples", () => expect(rows.length).toBeGreaterThanOrEqual(10));
  it.each(rows.map((r) => [r[0]!, r[1]!, r[2]!, r[3]!]))("%s", (_name, log, signature, basis) => {
    const lines = log.split(" ⏎ ");
    const got = selectSignature(lines);
    if (signature === "—") {
      expect(got).toBeUndefined();
    } else {
      expect(got?.line.text).toBe(signature);
      expect(got?.basis).toBe(basis);
      expect(lines[got!.line.line - 1]).toBe(signature);
    }
  });
});
