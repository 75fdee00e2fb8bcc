import { describe, expect, it } from "vitest";
import { cleanLogLine, parseDiff } from "../../src/evidence/index.js";

describe("cleanLogLine", () => {
  it("splits gh --log-failed prefixes and drops the timestamp", () => {
    expect(cleanLogLine("build\tRun npm test\t2026-11-04T14:30:00.1234567Z FAIL x")).toEqual({
      job: "build",
      step: "Run npm test",
      text: "FAIL x",
    });
  });
  it("removes a byte-order mark before the timestamp of a step's first line, ANSI escapes and CR", () => {
    const raw =
      "test\tRun tests\t\ufeff2026-01-01T10:00:02.123Z \u001b[1m\u001b[31m FAIL \u001b[39m\u001b[22m a.test.ts\r";
    expect(cleanLogLine(raw)).toEqual({ job: "test", step: "Run tests", text: " FAIL  a.test.ts" });
  });
  it("keeps tabs inside the text after the prefix", () => {
    expect(cleanLogLine("go\tRun go test\t2026-01-01T00:00:00Z FAIL\tpkg\t0.01s").text).toBe("FAIL\tpkg\t0.01s");
  });
  it("treats lines without the prefix as plain log lines, dropping a leading timestamp", () => {
    expect(cleanLogLine("2026-11-15T18:00:00.211Z FAIL src/a.test.js")).toEqual({
      job: "-",
      step: "-",
      text: "FAIL src/a.test.js",
    });
    expect(cleanLogLine("plain text\twith a tab")).toEqual({ job: "-", step: "-", text: "plain text\twith a tab" });
  });
  it("keeps ##[error] and ##[group] markers in the text (the classifier reads them)", () => {
    expect(cleanLogLine("j\ts\t2026-01-01T00:00:00Z ##[error]Process completed with exit code 1.").text).toBe(
      "##[error]Process completed with exit code 1.",
    );
  });
  it("removes OSC hyperlinks and cursor sequences", () => {
    expect(cleanLogLine("\u001b]8;;https://x\u0007link\u001b]8;;\u0007 done\u001b[2K").text).toBe("link done");
  });
});

describe("parseDiff", () => {
  it("splits hunks per file, counting hunks from 1 per file", () => {
    const diff = [
      "diff --git a/src/a.ts b/src/a.ts",
      "--- a/src/a.ts",
      "+++ b/src/a.ts",
      "@@ -1,3 +1,3 @@ fn",
      " keep",
      "-old",
      "+new",
      " keep",
      "@@ -10,1 +10,2 @@",
      " x",
      "+y",
      "diff --git a/b.sql b/b.sql",
      "new file mode 100644",
      "--- /dev/null",
      "+++ b/b.sql",
      "@@ -0,0 +1,1 @@",
      "+SELECT 1;",
    ].join("\n");
    expect(parseDiff(diff)).toEqual([
      { file: "src/a.ts", header: "@@ -1,3 +1,3 @@ fn", index: 1, changed: ["-old", "+new"] },
      { file: "src/a.ts", header: "@@ -10,1 +10,2 @@", index: 2, changed: ["+y"] },
      { file: "b.sql", header: "@@ -0,0 +1,1 @@", index: 1, changed: ["+SELECT 1;"] },
    ]);
  });
  it("reads a removed line that starts with `--` as a change, not a file header", () => {
    const diff = ["--- a/q.sql", "+++ b/q.sql", "@@ -1,2 +1,1 @@", "--- a comment", " SELECT 1;"].join("\n");
    expect(parseDiff(diff)).toEqual([
      { file: "q.sql", header: "@@ -1,2 +1,1 @@", index: 1, changed: ["--- a comment"] },
    ]);
  });
  it("uses the old path for a deleted file and accepts CRLF", () => {
    const diff = [
      "diff --git a/gone.txt b/gone.txt",
      "deleted file mode 100644",
      "--- a/gone.txt",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-bye",
    ].join("\r\n");
    expect(parseDiff(diff)).toEqual([{ file: "gone.txt", header: "@@ -1 +0,0 @@", index: 1, changed: ["-bye"] }]);
  });
});

describe("cleanLogLine timestamps", () => {
  it.each([
    ["2026-01-05T10:00:01Z x", "x"],
    ["2026-01-05T10:00:01.5Z x", "x"],
    ["2026-01-05T10:00:01.1234567Z x", "x"],
    ["2026-01-05T10:00:01+02:00 x", "x"],
    ["2026-01-05T10:00:01-0500 x", "x"],
    ["2026-01-05T10:00:01Zx", "x"],
    ["2026-01-05 10:00:01Z x", "2026-01-05 10:00:01Z x"],
    ["2026-01-05T10:00Z x", "2026-01-05T10:00Z x"],
    ["2026-01-05T10:00:01 x", "2026-01-05T10:00:01 x"],
    ["2026-01-05T10:00:01+2 x", "2026-01-05T10:00:01+2 x"],
    ["x 2026-01-05T10:00:01Z", "x 2026-01-05T10:00:01Z"],
  ])("%j → %j", (raw, text) => {
    expect(cleanLogLine(raw).text).toBe(text);
  });
  it("does not carry one line's job and step to a line with a different prefix", () => {
    expect(cleanLogLine("a\tb\t2026-01-05T10:00:01Z x")).toEqual({ job: "a", step: "b", text: "x" });
    expect(cleanLogLine("a\tbc\t2026-01-05T10:00:01Z y")).toEqual({ job: "a", step: "bc", text: "y" });
    expect(cleanLogLine("\t\t2026-01-05T10:00:01Z z")).toEqual({ job: "-", step: "-", text: "z" });
    expect(cleanLogLine("a\tbc\t2026-01-05T10:00:01Z w")).toEqual({ job: "a", step: "bc", text: "w" });
  });
});
