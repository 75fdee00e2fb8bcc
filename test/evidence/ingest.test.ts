import { appendFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { MAX_STORED_LINES_PER_LOG, openWorkspace, type Workspace } from "../../src/evidence/index.js";
import { ghLog, makeWorkspace, runJson } from "./helpers.js";

const open: Workspace[] = [];
async function ws(dir: string): Promise<Workspace> {
  const w = await openWorkspace(dir);
  open.push(w);
  return w;
}
afterEach(() => {
  for (const w of open.splice(0)) w.close();
});

describe("ingest of malformed inputs", () => {
  const dir = makeWorkspace({
    "runs/1.json": runJson(1, "failure", "2026-01-01T00:00:00Z"),
    "logs/1.log": ghLog([
      "> vitest",
      "AssertionError: expected 1 to be 2",
      "##[error]Process completed with exit code 1.",
    ]),
    "runs/2.json": '{ "databaseId": 2, ', // invalid json
    "runs/3.json": runJson(3, "failure", "2026-01-03T00:00:00Z"), // failed run without a log
    "logs/4.log": ghLog(["error TS2322: x"]), // log without its run
    "logs/5.log": new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0x00, 0x01, 0x02]), // binary
    "logs/6.log": new Uint8Array([0x6f, 0x6b, 0x0a, 0xc3, 0x28, 0x0a]), // invalid utf-8
    "runs/6.json": runJson(6, "failure", "2026-01-06T00:00:00Z"),
    "prs/7.json": "", // empty
    "prs/8.json": JSON.stringify({ number: 9, title: "mismatch" }), // number does not match the file
    "tickets/notes.md": "not a ticket", // unrecognized
    "tickets/T-1.json": JSON.stringify({
      id: "T-1",
      title: "ok ticket",
      body: "AssertionError: expected 1 to be 2",
      status: "open",
      url: "u",
    }),
    "tickets.json": JSON.stringify([
      { id: "T-2", title: "two" },
      { id: "T-1", title: "duplicate" },
    ]),
    "runs/10.json": runJson(10, "success", "2026-01-10T00:00:00Z"),
    "prs/11.diff": "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n", // a diff without its PR
  });

  it("ingests everything that is well-formed and reports each problem against its file", async () => {
    const w = await ws(dir);
    const codes = w.summary.problems.map((p) => `${p.file} ${p.code}`);
    expect(codes).toEqual([
      "logs/4.log log_without_run",
      "logs/5.log binary_file",
      "logs/6.log invalid_utf8",
      "prs/11.diff diff_without_change",
      "prs/7.json empty_file",
      "prs/8.json id_mismatch",
      "runs/2.json invalid_json",
      "runs/3.json run_without_log",
      "runs/6.json run_without_log",
      "tickets/T-1.json duplicate_id", // tickets.json sorts first and defines T-1
      "tickets/notes.md unrecognized_file",
    ]);
    for (const p of w.summary.problems) expect(p.message).toMatch(/^[a-z`[]/);
    expect(w.summary.files).toBe(15);
    expect(w.summary.skipped).toBe(6); // 2.json, 5.log, 6.log, 7.json, 8.json, notes.md
    expect(w.summary.read).toBe(9);
    expect(w.summary.read + w.summary.unchanged + w.summary.skipped).toBe(w.summary.files);
    // the good files are all there
    expect(w.getRun("1")?.conclusion).toBe("failure");
    expect(w.signature("1")?.record.text).toBe("AssertionError: expected 1 to be 2");
    expect(w.getRecord("ticket:T-1")?.text).toBe("T-1: duplicate");
    expect(w.getRecord("ticket:T-2")).toBeDefined();
    expect(w.getRun("10")?.conclusion).toBe("success");
    // nothing of a skipped file is half-ingested: the invalid utf-8 log had a good first line
    expect(w.getRecord("log:6:1")).toBeUndefined();
    expect(w.hasLog("6")).toBe(false);
    expect(w.getRun("2")).toBeUndefined();
  });

  it("keeps reporting the same problems on a refresh that reads nothing", async () => {
    const w = await ws(dir);
    const again = w.refresh();
    expect(again.read).toBe(0);
    expect(again.unchanged).toBe(9);
    expect(again.problems.length).toBe(11);
  });
});

describe("incremental refresh", () => {
  it("re-reads only changed files, keeps touched-but-identical ones, and removes deleted ones", async () => {
    const dir = makeWorkspace({
      "runs/1.json": runJson(1, "failure", "2026-01-01T00:00:00Z"),
      "logs/1.log": ghLog(["FAIL a.test.ts > one", "##[error]Process completed with exit code 1."]),
      "runs/2.json": runJson(2, "failure", "2026-01-02T00:00:00Z"),
      "logs/2.log": ghLog(["FAIL a.test.ts > one"]),
    });
    const w = await ws(dir);
    expect(w.summary.read).toBe(4);
    expect(w.signature("1")?.record.text).toBe("FAIL a.test.ts > one");

    // same bytes, new mtime: hashed, not re-read
    const t = statSync(join(dir, "logs/1.log")).mtime;
    utimesSync(join(dir, "logs/1.log"), t, new Date(t.getTime() + 5000));
    let s = w.refresh();
    expect([s.read, s.unchanged]).toEqual([0, 4]);

    // changed content: re-read, old records replaced
    writeFileSync(join(dir, "logs/1.log"), ghLog(["panic: boom", "FAIL a.test.ts > one"]));
    s = w.refresh();
    expect([s.read, s.unchanged]).toEqual([1, 3]);
    expect(w.signature("1")?.record.text).toBe("panic: boom");
    expect(w.getRecord("log:1:2")?.text).toBe("FAIL a.test.ts > one");

    // appended lines: re-read
    appendFileSync(join(dir, "logs/2.log"), ghLog(["error TS2322: late"]));
    s = w.refresh();
    expect(s.read).toBe(1);
    expect(w.getRecord("log:2:2")?.text).toBe("error TS2322: late");

    // deleted: records removed
    rmSync(join(dir, "logs/2.log"));
    s = w.refresh();
    expect(s.removed).toBe(1);
    expect(w.hasLog("2")).toBe(false);
    expect(w.getRecord("log:2:1")).toBeUndefined();
    expect(s.problems.map((p) => p.code)).toEqual(["run_without_log"]);
  });

  it("a second process sees the store the first one wrote, without re-reading", async () => {
    const dir = makeWorkspace({ "runs/1.json": runJson(1, "success", "2026-01-01T00:00:00Z") });
    (await ws(dir)).close();
    const second = await ws(dir);
    expect([second.summary.read, second.summary.unchanged]).toEqual([0, 1]);
    expect(second.getRecord("run:1")?.locator).toEqual({ kind: "run", parts: [["run", "1"]] });
  });
});

describe("large logs", () => {
  it("streams a log of many lines, storing only error-bearing lines and the signature", async () => {
    const lines: string[] = [];
    for (let i = 0; i < 50_000; i++) lines.push(`ok ${i} processed item ${i}`);
    lines.push("expected 3 but got 4", "##[error]Process completed with exit code 1.");
    const dir = makeWorkspace({
      "runs/1.json": runJson(1, "failure", "2026-01-01T00:00:00Z"),
      "logs/1.log": ghLog(lines),
    });
    const w = await ws(dir);
    const stored = w.logLines("1");
    expect(stored.map((l) => [l.line, l.record.text, l.tier])).toEqual([
      [50_001, "expected 3 but got 4", null],
      [50_002, "##[error]Process completed with exit code 1.", "generic"],
    ]);
    expect(w.signature("1")).toMatchObject({ basis: "before_trailer", record: { id: "log:1:50001" } });
  });

  it("caps the stored error-bearing lines per log but always keeps the signature", async () => {
    const lines = ["plain output"];
    for (let i = 0; i < MAX_STORED_LINES_PER_LOG + 10; i++) lines.push(`FAILED tests/t.py::test_${i} - assert 0`);
    const dir = makeWorkspace({
      "runs/1.json": runJson(1, "failure", "2026-01-01T00:00:00Z"),
      "logs/1.log": ghLog(lines),
    });
    const w = await ws(dir);
    expect(w.logLines("1").length).toBe(MAX_STORED_LINES_PER_LOG);
    expect(w.signature("1")?.record.id).toBe("log:1:2");
  });

  it("cuts a line longer than 64 KiB instead of holding it whole", async () => {
    const long = "x".repeat(3 * 1024 * 1024);
    const dir = makeWorkspace({
      "runs/1.json": runJson(1, "failure", "2026-01-01T00:00:00Z"),
      "logs/1.log": `${long}\npanic: after the long line\n`,
    });
    const w = await ws(dir);
    expect(w.signature("1")?.record.id).toBe("log:1:2");
  });
});

describe("a workspace folder that disappears", () => {
  it("makes refresh fail with workspace_not_found instead of emptying the store", async () => {
    const dir = makeWorkspace({ "runs/1.json": runJson(1, "success", "2026-01-01T00:00:00Z") });
    const w = await ws(dir);
    const moved = `${dir}-moved`;
    const { renameSync } = await import("node:fs");
    renameSync(dir, moved);
    expect(() => w.refresh()).toThrow(/^no such workspace folder `/);
    renameSync(moved, dir);
    expect(w.refresh().files).toBe(1);
    expect(w.getRun("1")).toBeDefined();
  });
});

describe("summary arithmetic", () => {
  it("files = read + unchanged + skipped on every refresh, and when opened without refreshing", async () => {
    const dir = makeWorkspace({
      "runs/1.json": runJson(1, "success", "2026-01-01T00:00:00Z"),
      "runs/2.json": "{",
      "logs/3.log": "",
    });
    const check = (s: { files: number; read: number; unchanged: number; skipped: number }) =>
      expect(s.read + s.unchanged + s.skipped).toBe(s.files);
    const w = await ws(dir);
    check(w.summary);
    expect([w.summary.read, w.summary.unchanged, w.summary.skipped]).toEqual([1, 0, 2]);
    check(w.refresh());
    expect([w.summary.read, w.summary.unchanged, w.summary.skipped]).toEqual([0, 1, 2]);
    const r = await openWorkspace(dir, { refresh: false });
    open.push(r);
    check(r.summary);
    expect([r.summary.read, r.summary.unchanged, r.summary.skipped]).toEqual([0, 1, 2]);
  });
});

describe("duplicate ids", () => {
  it("a file that fails after its first records were stored leaves none of them", async () => {
    // the invalid byte sits past the first 1 MiB read, so error lines were stored before it
    const head = ghLog(["error TS2322: early", ...Array.from({ length: 30_000 }, (_, i) => `line ${i} of output`)]);
    const dir = makeWorkspace({
      "runs/1.json": runJson(1, "failure", "2026-01-01T00:00:00Z"),
      "logs/1.log": Buffer.concat([
        Buffer.from(head),
        Buffer.from("\n"),
        Buffer.from([0xc3, 0x28]),
        Buffer.from("\npanic: late\n"),
      ]),
      // read first (sorted paths): its hunk claims `hunk:2:x:1`
      "commits/2.diff": "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
      // its first hunk is stored, its second is a duplicate of the commit's
      "prs/2.diff":
        "diff --git a/q b/q\n--- a/q\n+++ b/q\n@@ -1 +1 @@\n-a\n+b\ndiff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
      "prs/2.json": JSON.stringify({ number: 2, title: "two" }),
    });
    expect(Buffer.byteLength(head)).toBeGreaterThan(1024 * 1024);
    const w = await ws(dir);
    expect(w.summary.problems.map((p) => `${p.file} ${p.code}`)).toEqual([
      "commits/2.diff diff_without_change",
      "logs/1.log invalid_utf8",
      "prs/2.diff duplicate_id",
      "runs/1.json run_without_log",
    ]);
    expect(w.hasLog("1")).toBe(false);
    expect(w.logLines("1")).toEqual([]);
    expect(w.getRecord("log:1:1")).toBeUndefined();
    expect(w.getRecord("hunk:2:q:1")).toBeUndefined();
    expect(w.hunks("2").map((r) => r.id)).toEqual(["hunk:2:x:1"]);
    expect(w.summary.records).toBe(3); // run 1, PR 2 and the commit's hunk
  });

  it("a log that lost to another file with the same run is ingested once that file is gone", async () => {
    const dir = makeWorkspace({
      "runs/1.json": runJson(1, "failure", "2026-01-01T00:00:00Z"),
      "logs/1.log": ghLog(["panic: first"]),
      "logs/1.txt": ghLog(["panic: second"]),
    });
    const w = await ws(dir);
    expect(w.summary.problems.map((p) => `${p.file} ${p.code}`)).toEqual(["logs/1.txt duplicate_id"]);
    expect(w.signature("1")?.record.text).toBe("panic: first");
    rmSync(join(dir, "logs/1.log"));
    const s = w.refresh();
    expect(s.problems).toEqual([]);
    expect([s.files, s.read, s.unchanged, s.skipped, s.removed]).toEqual([2, 1, 1, 0, 1]);
    expect(w.signature("1")?.record.text).toBe("panic: second");
  });
});
