// Property: the candidate search of logscan.ts never misses a line the classifier classifies — on
// the decoded text and on its UTF-8 bytes spelled as latin1 (how a small file is scanned) — so
// skipping the other lines changes nothing the store keeps.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { classifyLine, cleanLogLine } from "../../src/evidence/index.js";
import { CANDIDATE, candidateAt } from "../../src/evidence/signatures.js";
import { utf8Of } from "../../src/evidence/text.js";

/** Whether the scan would look at this raw line (ANSI escapes and BOMs already removed). */
function isCandidate(raw: string): boolean {
  const re = new RegExp(CANDIDATE.source, CANDIDATE.flags);
  for (;;) {
    const m = re.exec(raw);
    if (m === null) return false;
    if (candidateAt(raw, m)) return true;
    re.lastIndex = m.index + 1;
  }
}

const latin1 = (s: string): string => Buffer.from(s, "utf8").toString("latin1");

// fragments of every rule, and characters next to which the `e: `, `E  ` and mark rules change
const PARTS = [
  "error",
  "ERR",
  "Fail",
  "FAIL",
  "panic: ",
  "exit status 1",
  "Fatal",
  "Exception",
  "Segmentation fault",
  "Traceback (most recent call last):",
  "E",
  "e",
  "e: ",
  "E: ",
  ":",
  " ",
  "  ",
  "\t",
  "\u00a0",
  "\u3000",
  "\u2003",
  "\ufeff",
  "]",
  "[",
  "##[error]",
  "::error::",
  "#3 0.5 ",
  "●",
  "×",
  "✗",
  "✕",
  "✓",
  "›",
  "é",
  "É",
  ".go:1",
  ".GO:2",
  "x_test",
  "TS2322",
  "npm ERR! ",
  "--- FAIL: T",
  "BUILD FAILED",
  "> Task :a FAILED",
  "Process completed with exit code 1.",
  "test result: FAILED.",
  "[ERROR] x",
  "thread 'm' panicked at ",
  "a.c:1:2: error: x",
  "==== FAILURES ====",
];
const PREFIXES = [
  "",
  "job\tstep\t2026-01-05T10:00:01.1234567Z ",
  "2026-01-05T10:00:01Z ",
  "job\t\t2026-01-05T10:00:01.5+02:00 ",
];

const rawLine = fc
  .tuple(
    fc.constantFrom(...PREFIXES),
    fc.array(
      fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom(...PARTS) },
        { weight: 1, arbitrary: fc.string({ unit: "grapheme", maxLength: 4 }) },
      ),
      { maxLength: 6 },
    ),
    fc.boolean(),
  )
  .map(([prefix, parts, cr]) => `${prefix}${parts.join("")}${cr ? "\r" : ""}`.replace(/\n/g, " "));

describe("candidate search ⊇ classified lines", () => {
  it("for random raw lines, decoded and as latin1 bytes", () => {
    fc.assert(
      fc.property(rawLine, (raw) => {
        const cls = classifyLine(cleanLogLine(raw).text);
        if (cls === null) return;
        expect(isCandidate(raw)).toBe(true);
        expect(isCandidate(latin1(raw))).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });

  it("for the lines of the signature spec's shapes with non-ASCII whitespace", () => {
    for (const raw of [
      "E\u00a0\u00a0assert 1 == 2",
      "E\u3000\u3000boom",
      "2026-01-05T10:00:01Z \u00a0e: a.kt:1:1 y",
      "2026-01-05T10:00:01Z \u3000e: a.kt:1:1 y",
      "##[error]e: a.kt:1:1 z",
      "e: a.kt:1:1 z",
      "✕ bad",
      "× fails",
      "● Suite › t",
      "✗ broken",
    ]) {
      expect(classifyLine(cleanLogLine(raw).text)).not.toBeNull();
      expect(isCandidate(raw)).toBe(true);
      expect(isCandidate(latin1(raw))).toBe(true);
    }
  });

  it("keeps rejecting `e: ` inside a word, so common `Type: x` lines are not cleaned", () => {
    expect(isCandidate("Type: string")).toBe(false);
    expect(isCandidate(latin1("Type: string"))).toBe(false);
  });

  it("utf8Of undoes the latin1 spelling", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 30 }), (s) => {
        expect(utf8Of(latin1(s))).toBe(s);
      }),
    );
  });
});
