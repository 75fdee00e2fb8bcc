// Properties of ranked signature selection (specs/failure-signatures.md §2): a step that passed, or a
// generic trailer appended to the log, never changes the signature, and the signature is always one
// of the log's own lines, verbatim after cleaning.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { cleanLogLine, selectSignature } from "../../src/evidence/index.js";

// lines of failing output: compiler and test errors, exceptions, summaries, infrastructure, plain text
const FAILING = [
  "src/a.ts(3,1): error TS2322: Type 'string' is not assignable to type 'number'.",
  "npm ERR! code ELIFECYCLE",
  "--- FAIL: TestX (0.00s)",
  "    x_test.go:12: got 3, want 4",
  "FAIL",
  "BUILD FAILED in 3s",
  "E       assert 1 == 2",
  "TypeError: cannot read properties of undefined",
  "Error: boom",
  "The operation was canceled.",
  "CMake Error at CMakeLists.txt:4 (message):",
  "  Could NOT find Foo",
  "  1 failing",
  "  1) adds numbers:",
  "     AssertionError: expected 3 to equal 4",
  "expected 3 but got 4",
  "test result: FAILED. 1 passed; 1 failed",
  "",
];
// lines a passing step prints: some look like errors (a test that checks an error message)
const PASSING = [
  "ok  \texample.com/pkg\t0.01s",
  "PASS src/a.test.js",
  "  ✓ handles errors (3ms)",
  "Error: expected failure logged by a passing test",
  "npm WARN deprecated x@1.0.0",
  "compiling 12 files",
  "",
];
const TRAILERS = [
  "make: *** [Makefile:3: all] Error 2",
  "Done. Your build exited with 1.",
  "##[error]Process completed with exit code 1.",
  "exit status 1",
  "error Command failed with exit code 1.",
];

const failing = fc.array(fc.oneof(fc.constantFrom(...FAILING), fc.string({ maxLength: 20 })), { maxLength: 25 });
const passingStep = fc.tuple(
  fc.constantFrom("travis", "github"),
  fc.array(fc.constantFrom(...PASSING), { maxLength: 8 }),
);

/** A step that passed, as Travis (its exit line says 0) or GitHub Actions (another step starts after it) print it. */
function passedStep([ci, lines]: [string, string[]]): string[] {
  return ci === "travis"
    ? ["$ npm run lint", ...lines, 'The command "npm run lint" exited with 0.']
    : ["##[group]Run npm run lint", ...lines, "##[endgroup]"];
}

const lineOf = (lines: readonly string[]) => {
  const s = selectSignature(lines);
  return s === undefined ? undefined : s.line.text;
};

describe("ranked signature selection", () => {
  it("a passing step before the failing one never changes the signature", () => {
    fc.assert(
      fc.property(failing, passingStep, (lines, step) => {
        // the failing step is a step of its own too, so both logs have the same windows for it
        const alone = ["##[group]Run npm test", ...lines];
        const withPassing = [...passedStep(step), ...alone];
        expect(lineOf(withPassing)).toBe(lineOf(alone));
      }),
      { numRuns: 1500 },
    );
  });

  it("a generic trailer appended to a log never changes the signature", () => {
    fc.assert(
      fc.property(failing, fc.constantFrom(...TRAILERS), (lines, trailer) => {
        const sig = selectSignature(lines);
        const after = selectSignature([...lines, trailer]);
        if (sig === undefined) return;
        expect(after?.line.line).toBe(sig.line.line);
      }),
      { numRuns: 1500 },
    );
  });

  it("the signature and every ranked line is one of the log's own lines, verbatim after cleaning", () => {
    const raw = fc.oneof(
      fc.constantFrom(...FAILING, ...PASSING, ...TRAILERS),
      fc.constantFrom(...FAILING).map((l) => `2026-01-05T10:00:01.1234567Z \u001b[31m${l}\u001b[0m\r`),
      fc.constantFrom(...FAILING).map((l) => `build\tRun tests\t2026-01-05T10:00:01.1234567Z ${l}`),
      fc.constantFrom(...FAILING).map((l) => `travis_time:start:0a1b\r\u001b[0K${l}`),
      fc.string({ maxLength: 20 }),
    );
    fc.assert(
      fc.property(fc.array(raw, { maxLength: 30 }), (rawLines) => {
        const cleaned = rawLines.map((r) => cleanLogLine(r).text);
        const sig = selectSignature(cleaned);
        if (sig === undefined) return;
        for (const r of sig.ranked) expect(r.line.text).toBe(cleaned[r.line.line - 1]);
        expect(sig.ranked[0]?.line).toBe(sig.line);
        expect(sig.score).toBe(sig.reasons.reduce((n, r) => n + r.points, 0));
      }),
      { numRuns: 1500 },
    );
  });
});
