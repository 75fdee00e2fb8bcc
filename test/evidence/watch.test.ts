// A refresh that costs what changed (adr/0110): while this process's watch of a workspace saw no
// change since the last full refresh, `refreshChanged` (and so `openWorkspace` and `ground`) stats
// no file; every kind of change brings back the full refresh and what it reads.
import { existsSync, mkdirSync, renameSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ground } from "../../src/answers/index.js";
import { openWorkspace, type Workspace, withWorkspace } from "../../src/evidence/index.js";
import { ghLog, makeWorkspace, runJson } from "./helpers.js";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function workspace(): string {
  const dir = makeWorkspace({
    "runs/1.json": runJson(1, "failure", "2026-01-01T00:00:00Z"),
    "logs/1.log": ghLog(["FAIL a.test.ts > one", "##[error]Process completed with exit code 1."]),
    "runs/2.json": runJson(2, "failure", "2026-01-02T00:00:00Z"),
    "logs/2.log": ghLog(["FAIL a.test.ts > one", "##[error]Process completed with exit code 1."]),
    "tickets/OPS-1.json": JSON.stringify({ id: "OPS-1", title: "flaky a.test.ts" }),
  });
  dirs.push(dir);
  return dir;
}

/** Opened, refreshed in full, then refreshed again with nothing changed: the watch is trusted. */
async function watched(dir: string): Promise<Workspace> {
  const ws = await openWorkspace(dir);
  expect(ws.lastRefresh).toEqual({ mode: "full", statted: 5 });
  const again = await ws.refreshChanged();
  expect(ws.lastRefresh).toEqual({ mode: "watched", statted: 0 });
  expect(again).toEqual({ ...ws.summary, read: 0, unchanged: 5, removed: 0 });
  return ws;
}

describe("refreshing an unchanged workspace", () => {
  it("stats no file while the watch saw no change, and answers as a full refresh does", async () => {
    const dir = workspace();
    const ws = await watched(dir);
    const full = ws.refresh();
    expect(ws.lastRefresh.mode).toBe("full");
    // the sync refresh wrote the store: the next watched refresh cannot vouch for it
    await ws.refreshChanged();
    expect(ws.lastRefresh.mode).toBe("full");
    expect(await ws.refreshChanged()).toEqual(full);
    expect(ws.lastRefresh.mode).toBe("watched");
    ws.close();
  });

  it("answers concurrent refreshes, each with its own barrier", async () => {
    const dir = workspace();
    const ws = await watched(dir);
    const all = await Promise.all([ws.refreshChanged(), ws.refreshChanged(), ws.refreshChanged()]);
    expect(new Set(all.map((s) => JSON.stringify(s))).size).toBe(1);
    expect(ws.lastRefresh.mode).toBe("watched");
    writeFileSync(join(dir, "runs/3.json"), runJson(3, "failure", "2026-01-03T00:00:00Z"));
    const after = await Promise.all([ws.refreshChanged(), ws.refreshChanged()]);
    expect(after.map((s) => s.files)).toEqual([6, 6]);
    ws.close();
  });

  it("lets ground(dir, q) reopen the workspace without a scan", async () => {
    const dir = workspace();
    const first = await ground(dir, "why did run 2 fail?");
    const ws = await openWorkspace(dir);
    expect(ws.lastRefresh.mode).toBe("watched");
    ws.close();
    expect(await ground(dir, "why did run 2 fail?")).toEqual(first);
    expect(first.claims.some((c) => c.role === "prior_occurrence")).toBe(true);
  });
});

describe("withWorkspace keeps the store open between calls", () => {
  it("reuses it while nothing changed, and reopens a store that was deleted under it", async () => {
    const dir = workspace();
    const modes = async () => withWorkspace(dir, (ws) => [ws.lastRefresh.mode, ws.listRuns().length]);
    expect(await modes()).toEqual(["full", 2]);
    expect(await modes()).toEqual(["watched", 2]);
    rmSync(join(dir, ".tessera"), { recursive: true, force: true });
    expect(await modes()).toEqual(["full", 2]);
    expect(existsSync(join(dir, ".tessera", "evidence.db"))).toBe(true);
    expect(await modes()).toEqual(["watched", 2]);
    rmSync(dir, { recursive: true, force: true });
    await expect(modes()).rejects.toThrow(/no such workspace folder/);
  });
});

describe("every change brings back the full refresh", () => {
  it("a file rewritten with other content", async () => {
    const dir = workspace();
    const ws = await watched(dir);
    writeFileSync(join(dir, "logs/1.log"), ghLog(["FAIL b.test.ts > two, a longer line", "exit 1"]));
    const s = await ws.refreshChanged();
    expect([ws.lastRefresh.mode, s.read]).toEqual(["full", 1]);
    expect(ws.signature("1")?.record.text).toBe("FAIL b.test.ts > two, a longer line");
    ws.close();
  });

  it("a file rewritten in place with the same size and its old modification time", async () => {
    const dir = workspace();
    const ws = await watched(dir);
    const path = join(dir, "logs/1.log");
    const before = statSync(path);
    writeFileSync(path, ghLog(["FAIL a.test.ts > 0ne", "##[error]Process completed with exit code 1."]));
    utimesSync(path, before.atime, before.mtime);
    expect(statSync(path).size).toBe(before.size);
    const s = await ws.refreshChanged();
    expect([ws.lastRefresh.mode, s.read]).toEqual(["full", 1]);
    expect(ws.signature("1")?.record.text).toBe("FAIL a.test.ts > 0ne");
    ws.close();
  });

  it("a file added to a folder, a file deleted, a folder renamed away and back", async () => {
    const dir = workspace();
    const ws = await watched(dir);
    writeFileSync(join(dir, "runs/3.json"), runJson(3, "failure", "2026-01-03T00:00:00Z"));
    let s = await ws.refreshChanged();
    expect([ws.lastRefresh.mode, s.read, s.files]).toEqual(["full", 1, 6]);
    expect(ws.getRun("3")).toBeDefined();

    await ws.refreshChanged();
    expect(ws.lastRefresh.mode).toBe("watched");
    rmSync(join(dir, "tickets/OPS-1.json"));
    s = await ws.refreshChanged();
    expect([ws.lastRefresh.mode, s.removed]).toEqual(["full", 1]);

    await ws.refreshChanged();
    renameSync(join(dir, "logs"), join(dir, "old-logs"));
    s = await ws.refreshChanged();
    expect([ws.lastRefresh.mode, s.removed, ws.hasLog("1")]).toEqual(["full", 2, false]);
    renameSync(join(dir, "old-logs"), join(dir, "logs"));
    s = await ws.refreshChanged();
    expect([ws.lastRefresh.mode, s.read, ws.hasLog("1")]).toEqual(["full", 2, true]);
    ws.close();
  });

  it("a folder the watch did not know yet", async () => {
    const dir = workspace();
    const ws = await watched(dir);
    mkdirSync(join(dir, "commits"));
    const sha = "4be1c07d9a2f3e5b6c7d8e9f0a1b2c3d4e5f6a7b";
    writeFileSync(join(dir, "commits", `${sha}.json`), JSON.stringify({ sha, subject: "fix" }));
    const s = await ws.refreshChanged();
    expect([ws.lastRefresh.mode, s.read]).toEqual(["full", 1]);
    expect(await ws.refreshChanged()).toEqual({ ...s, read: 0, unchanged: 6 });
    ws.close();
  });

  it("never trusts the watch for a linked file, whose target can change elsewhere", async () => {
    const dir = workspace();
    const outside = makeWorkspace({ "t.json": JSON.stringify({ id: "OPS-2", title: "linked" }) });
    dirs.push(outside);
    symlinkSync(join(outside, "t.json"), join(dir, "tickets/OPS-2.json"));
    const ws = await openWorkspace(dir);
    await ws.refreshChanged();
    expect(ws.lastRefresh).toEqual({ mode: "full", statted: 6 });
    writeFileSync(join(outside, "t.json"), JSON.stringify({ id: "OPS-2", title: "changed behind the link" }));
    await ws.refreshChanged();
    expect(ws.getRecord("ticket:OPS-2")?.text).toContain("changed behind the link");
    ws.close();
  });
});

describe("the full refresh and recent modification times", () => {
  it("hashes a file modified close to the last refresh, so a same-size same-time rewrite is read", async () => {
    const dir = workspace();
    const ws = await openWorkspace(dir, { refresh: false });
    const path = join(dir, "tickets/OPS-1.json");
    const before = statSync(path);
    writeFileSync(path, JSON.stringify({ id: "OPS-1", title: "flaky b.test.ts" }));
    utimesSync(path, before.atime, before.mtime);
    const s = ws.refresh();
    expect(s.read).toBe(1);
    expect(ws.getRecord("ticket:OPS-1")?.text).toContain("flaky b.test.ts");
    ws.close();
  });
});
