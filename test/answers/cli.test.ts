// The CLI in separate processes: byte-identical JSON across processes and fresh ingests, exit codes.
import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { copyExample, makeWorkspace, runJson } from "../evidence/helpers.js";

const CLI = join(import.meta.dirname, "..", "..", "dist", "cli", "main.js");
const tessera = (...args: string[]) =>
  spawnSync(process.execPath, [CLI, ...args], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });

describe("tessera ground", () => {
  const a = copyExample();
  const b = copyExample();

  it("gives byte-identical JSON in separate processes, and for a fresh ingest of a copy elsewhere", () => {
    for (const q of ["why did run 7010 fail?", "summarize PR 47", "why did run 7002 fail?"]) {
      const first = tessera("ground", "--workspace", a, "--json", q); // first process ingests
      const second = tessera("ground", "--workspace", a, "--json", q); // second reads the store
      const other = tessera("ground", "--workspace", b, "--json", q); // another folder, its own ingest
      expect(first.stderr).toBe("");
      expect(first.stdout.length).toBeGreaterThan(100);
      expect(second.stdout).toBe(first.stdout);
      expect(other.stdout).toBe(first.stdout);
      const parsed = JSON.parse(first.stdout) as { question: string };
      expect(parsed.question).toBe(q);
    }
  });

  it("gives the same answer to processes that open a fresh workspace at the same moment", async () => {
    const fresh = copyExample();
    const once = () =>
      new Promise<{ code: number | null; out: string; err: string }>((done) => {
        const p = spawn(process.execPath, [CLI, "ground", "--workspace", fresh, "--json", "why did run 7010 fail?"]);
        let out = "";
        let err = "";
        p.stdout.on("data", (d: Buffer) => (out += d.toString()));
        p.stderr.on("data", (d: Buffer) => (err += d.toString()));
        p.on("close", (code) => done({ code, out, err }));
      });
    const results = await Promise.all([once(), once(), once()]);
    const reference = tessera("ground", "--workspace", a, "--json", "why did run 7010 fail?").stdout;
    for (const r of results) {
      expect(r.err).toBe("");
      expect(r.code).toBe(0);
      expect(r.out).toBe(reference);
    }
  });

  it("exits 0 when grounded, 1 when refused, 2 on usage errors", () => {
    const ok = tessera("ground", "--workspace", a, "why did run 7001 fail?");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain("route: rca — run 7001 failed");
    expect(ok.stdout).toContain("failure_signature");
    expect(ok.stdout).toContain("grounded: 8 of 8 claims verified");
    const refused = tessera("ground", "--workspace", a, "why did run 7002 fail?");
    expect(refused.status).toBe(1);
    expect(refused.stdout).toContain("refused: run 7002 did not fail");
    const noWs = tessera("ground", "why did run 7001 fail?");
    expect(noWs.status).toBe(2);
    expect(noWs.stderr).toBe("tessera ground: missing required option `--workspace`\n");
    const noQ = tessera("ground", "--workspace", a);
    expect(noQ.status).toBe(2);
    expect(noQ.stderr).toMatch(/^tessera ground: missing the question/);
    const missing = tessera("ground", "--workspace", join(a, "nope"), "run 1");
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/^tessera ground: no such workspace folder `.*nope`\n$/);
  });
});

describe("tessera ingest", () => {
  it("prints the summary, and exits 1 when a file was skipped", () => {
    const dir = makeWorkspace({ "runs/1.json": runJson(1, "success", "2026-01-01T00:00:00Z") });
    const ok = tessera("ingest", dir, "--json");
    expect(ok.status).toBe(0);
    const s = JSON.parse(ok.stdout) as Record<string, unknown>;
    expect(Object.keys(s)).toEqual([
      "workspace",
      "files",
      "read",
      "unchanged",
      "skipped",
      "removed",
      "records",
      "problems",
    ]);
    expect(s).toMatchObject({ files: 1, read: 1, skipped: 0, records: 1, problems: [] });
    writeFileSync(join(dir, "runs", "2.json"), "{");
    const bad = tessera("ingest", dir);
    expect(bad.status).toBe(1);
    expect(bad.stdout).toContain("2 files — 0 read, 1 unchanged, 1 skipped");
    expect(bad.stdout).toMatch(/runs\/2\.json\s+invalid_json/);
    expect(tessera("ingest").status).toBe(2);
  });
});
