// `tessera ingest git` against a real repository built with the git binary.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { groundQuestion } from "../../src/answers/index.js";
import { exportGitRange, openWorkspace } from "../../src/evidence/index.js";

const CLI = join(import.meta.dirname, "..", "..", "dist", "cli", "main.js");

function repo(): { dir: string; shas: string[] } {
  const dir = mkdtempSync(join(tmpdir(), "tessera-git-"));
  const env = {
    ...process.env,
    GIT_AUTHOR_NAME: "Ada",
    GIT_AUTHOR_EMAIL: "ada@example.test",
    GIT_COMMITTER_NAME: "Ada",
    GIT_COMMITTER_EMAIL: "ada@example.test",
    GIT_AUTHOR_DATE: "2026-11-01T10:00:00Z",
    GIT_COMMITTER_DATE: "2026-11-01T10:00:00Z",
  };
  const git = (...args: string[]) => execFileSync("git", ["-C", dir, ...args], { env, encoding: "utf8" }).trim();
  git("init", "-q", "-b", "main");
  writeFileSync(join(dir, "app.py"), "def total(a, b):\n    return a + b\n");
  git("add", "app.py");
  git("commit", "-q", "-m", "Add total");
  writeFileSync(join(dir, "app.py"), "def total(a, b):\n    return round(a + b, 2)\n");
  git("commit", "-q", "-am", "Round totals to cents\n\nFixes BILL-9: totals showed float noise.");
  writeFileSync(join(dir, "README.md"), "# app\n");
  git("add", "README.md");
  git("commit", "-q", "-m", "Add a readme");
  return { dir, shas: git("rev-list", "--reverse", "HEAD").split("\n") };
}

describe("ingest git", () => {
  it("writes the range's commits into the workspace and summarizes a commit like a change", async () => {
    const { dir, shas } = repo();
    const into = mkdtempSync(join(tmpdir(), "tessera-ws-"));
    writeFileSync(
      join(into, "tickets.json"),
      JSON.stringify([{ id: "BILL-9", title: "Totals show float noise", status: "done", url: "u" }]),
    );
    const out = spawnSync(
      process.execPath,
      [CLI, "ingest", "git", dir, "--range", `${shas[0]}..HEAD`, "--into", into, "--json"],
      { encoding: "utf8" },
    );
    expect(out.stderr).toBe("");
    expect(out.status).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ commits: 2, skipped: 0, problems: [] });

    const ws = await openWorkspace(into);
    try {
      expect(
        ws
          .listCommits()
          .map((c) => c.id)
          .sort(),
      ).toEqual([`commit:${shas[1]}`, `commit:${shas[2]}`].sort());
      const r = groundQuestion(ws, `summarize commit ${shas[1]!.slice(0, 10)}`);
      expect(r.grounded).toBe(true);
      expect(r.claims.map((c) => [c.role, c.text])).toEqual([
        ["pull_request", `commit ${shas[1]}: Round totals to cents`],
        ["code_change", "app.py @@ -1,2 +1,2 @@\n-    return a + b\n+    return round(a + b, 2)"],
        ["motivating_ticket", `Motivating ticket: "BILL-9" appears in 'commit:${shas[1]}' and 'ticket:BILL-9'.`],
        ["ticket", "BILL-9: Totals show float noise"],
      ]);
      expect(r.claims[1]!.support[0]!.locator.parts).toEqual([
        ["commit", shas[1]],
        ["file", "app.py"],
        ["hunk", "@@ -1,2 +1,2 @@"],
      ]);
    } finally {
      ws.close();
    }
  });

  it("rejects a range that could be read as an option, and reports git's own error", () => {
    const { dir } = repo();
    const into = mkdtempSync(join(tmpdir(), "tessera-ws-"));
    expect(() => exportGitRange(dir, "--all", into)).toThrow(/range `--all` must look like `A..B`/);
    expect(() => exportGitRange(dir, "nope..HEAD", into)).toThrow(/^git rev-list failed: /);
  });
});
