import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** The committed example workspace. */
export const EXAMPLE = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "examples", "ci-workspace");

/** A private copy of the example workspace (without its evidence store), so tests never share a database. */
export function copyExample(): string {
  const dir = mkdtempSync(join(tmpdir(), "tessera-ws-"));
  for (const d of ["runs", "logs", "prs", "tickets", "commits"])
    cpSync(join(EXAMPLE, d), join(dir, d), { recursive: true });
  return dir;
}

/** A fresh temporary workspace folder with the given files (path → text or bytes). */
export function makeWorkspace(files: Record<string, string | Uint8Array>): string {
  const dir = mkdtempSync(join(tmpdir(), "tessera-ws-"));
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), content);
  }
  return dir;
}

/** A `gh run view --json` document. */
export function runJson(id: number, conclusion: string, createdAt: string, title = `run ${id}`): string {
  return JSON.stringify({
    databaseId: id,
    displayTitle: title,
    workflowName: "CI",
    conclusion,
    status: "completed",
    headBranch: "main",
    headSha: "abc1234",
    event: "push",
    createdAt,
    url: `https://example.test/runs/${id}`,
    jobs: [{ name: "test", conclusion, steps: [{ name: "Run tests", conclusion, number: 1 }] }],
  });
}

/** A `--log-failed` log from cleaned lines. */
export function ghLog(lines: readonly string[]): string {
  return `${lines.map((l, i) => `test\tRun tests\t${i === 0 ? "\ufeff" : ""}2026-01-01T00:00:${String(i % 60).padStart(2, "0")}.0000000Z ${l}`).join("\n")}\n`;
}
