// Property: `stripAnsi` (the hand-written ANSI removal logscan.ts runs on every block) gives
// exactly `s.replace(ANSI, "")` — on strings heavy in the characters the escapes' alternatives
// turn on (ESC, `[`, `]`, parameters, intermediates, finals, BEL, `\`, newline), high bytes (a
// latin1 block) and a few UTF-16 characters (a decoded block).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ANSI, stripAnsi } from "../../src/evidence/logs.js";

// single characters every branch looks at, a few whole escapes, and ordinary text
const CHARS = [
  "\u001b",
  "\u001b",
  "\u001b",
  "[",
  "]",
  "0",
  "1",
  "9",
  ";",
  "?",
  ":",
  "<",
  "\u0007",
  "\\",
  "\n",
  "\r",
  " ",
  "!",
  "/",
  "@",
  "A",
  "Z",
  "^",
  "_",
  "`",
  "m",
  "~",
  "\u007f",
  "\u0080",
  "\u00e9",
  "\u00ff",
  "\t",
  "x",
  "\u2713",
  "\ud83d",
];
const PIECES = [
  "\u001b[31m",
  "\u001b[0m",
  "\u001b[1;2?3 !m",
  "\u001b]0;title\u0007",
  "\u001b]8;;http://x\u001b\\",
  "\u001b]x",
  "\u001b[",
  "\u001b\\",
  "\u001bM",
  "\u001b[;m",
  "\u001b[12",
];
const latin1Char = fc.integer({ min: 0, max: 255 }).map((c) => String.fromCharCode(c));
const piece = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...CHARS) },
  { weight: 2, arbitrary: fc.constantFrom(...PIECES) },
  { weight: 1, arbitrary: latin1Char },
);
const text = fc.array(piece, { maxLength: 60 }).map((a) => a.join(""));

describe("stripAnsi", () => {
  it("equals the ANSI regular-expression replace", () => {
    fc.assert(
      fc.property(text, (s) => {
        expect(stripAnsi(s)).toBe(s.replace(ANSI, ""));
      }),
      { numRuns: 20000 },
    );
  });

  it("equals it on each alternative's edge cases", () => {
    const cases = [
      "",
      "plain",
      "\u001b",
      "a\u001b",
      "\u001b[",
      "\u001b[31",
      "\u001b[31m",
      "\u001b[ m",
      "\u001b[1 ;m",
      "\u001b[1;2\u0080m",
      "\u001b]",
      "\u001b]abc",
      "\u001b]abc\u0007z",
      "\u001b]abc\u001b\\z",
      "\u001b]ab\nc\u0007",
      "\u001b]ab\u001b[31mc",
      "\u001b]\u001b",
      "\u001b@",
      "\u001bZ",
      "\u001b[",
      "\u001b\\",
      "\u001b_",
      "\u001b`",
      "\u001b\u001b[0m",
      "x\u001b[31mred\u001b[0m y",
      "\u001b[?25h",
      "\u001b[1~",
      "\u001b[1\u007f",
    ];
    for (const s of cases) expect(stripAnsi(s)).toBe(s.replace(ANSI, ""));
  });

  it("removes every escape of a long block", () => {
    const long = "\u001b[31mx".repeat(50000);
    expect(stripAnsi(long)).toBe("x".repeat(50000));
    expect(stripAnsi("a\u001b[0mb")).toBe("ab");
  });
});
