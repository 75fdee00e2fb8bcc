// Differential tests: the streaming pieces against deliberately naive whole-input references.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyLine, isMeaningful, selectSignature } from "../../src/evidence/index.js";
import { blockLines } from "./naive-lines.js";

/** The selection rules of specs/failure-signatures.md §2, read straight off the whole log. */
function naive(lines: readonly string[]): { line: number; basis: string } | undefined {
  const cls = lines.map(classifyLine);
  const first = cls.findIndex((c) => c?.tier === "specific");
  if (first >= 0) return { line: first + 1, basis: "first_specific" };
  const trailer = cls.findIndex((c) => c !== null);
  if (trailer >= 0) {
    for (let i = trailer - 1; i >= 0; i--)
      if (cls[i] === null && isMeaningful(lines[i]!)) return { line: i + 1, basis: "before_trailer" };
    const summary = cls.findIndex((c) => c?.tier === "summary");
    if (summary >= 0) return { line: summary + 1, basis: "first_summary" };
  }
  for (let i = lines.length - 1; i >= 0; i--)
    if (cls[i] === null && isMeaningful(lines[i]!)) return { line: i + 1, basis: "last_output" };
  return undefined;
}

const POOL = [
  "error TS2322: Type 'string' is not assignable to type 'number'.",
  "npm ERR! code ELIFECYCLE",
  "Process completed with exit code 1.",
  "##[error]Process completed with exit code 1.",
  "--- FAIL: TestX (0.00s)",
  "FAIL",
  "BUILD FAILED in 3s",
  "##[group]Run make",
  "##[endgroup]",
  "",
  "   ",
  "expected 3 but got 4",
  "ok  \tpkg\t0.01s",
  "E   assert 1 == 2",
  "test result: FAILED. 1 passed; 1 failed",
];

describe("streaming signature selection = whole-log selection", () => {
  it("for random logs built from classified and plain lines", () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...POOL), fc.string({ maxLength: 30 })), { maxLength: 40 }),
        (lines) => {
          const got = selectSignature(lines);
          const want = naive(lines);
          expect(got === undefined ? undefined : { line: got.line.line, basis: got.basis }).toEqual(want);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("forEachBlock = split of the whole file", () => {
  it("across 1 MiB read boundaries, with multi-byte characters and CRLF", () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-lines-"));
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(
            fc.integer({ min: 0, max: 300_000 }),
            fc.constantFrom("a", "é", "✓", "😀", "\t"),
            fc.constantFrom("\n", "\r\n"),
          ),
          { minLength: 1, maxLength: 12 },
        ),
        fc.boolean(),
        (parts, trailingNewline) => {
          let text = parts.map(([n, ch, eol]) => ch.repeat(Math.max(1, Math.floor(n / ch.length))) + eol).join("");
          if (!trailingNewline) text = text.replace(/\r?\n$/, "");
          if (text === "") text = "x";
          const file = join(dir, "log.txt");
          writeFileSync(file, text);
          const { lines: got, bytes } = blockLines(file);
          const info = { bytes };
          const whole = readFileSync(file, "utf8").split("\n");
          if (whole[whole.length - 1] === "") whole.pop();
          // lines over 64 KiB are cut, and the rest of such a line is skipped
          expect(got).toEqual(whole.map((l) => (l.length > 65536 ? l.slice(0, 65536) : l)));
          expect(info.bytes).toBe(Buffer.byteLength(text));
        },
      ),
      { numRuns: 40 },
    );
  });
});
