// A small real workspace on disk, in the formats of specs/workspace.md, for tests that go through the
// evidence store and the answer paths: two failed runs sharing a TypeScript signature, a passed run,
// a run whose failed step printed only npm's trailer, a PR fixing the documented incident, a commit-free PR.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const SIG = "src/cache.ts(12,5): error TS2322: Type 'string' is not assignable to type 'number'.";

function run(id: number, conclusion: string, createdAt: string) {
  return {
    databaseId: id,
    displayTitle: conclusion === "success" ? "Bump deps" : "Cache keys by id",
    workflowName: "CI",
    conclusion,
    status: "completed",
    headBranch: "main",
    headSha: `9f3c2e1${id}`,
    event: "push",
    createdAt,
    url: `https://ci.example/runs/${id}`,
    jobs: [{ name: "build", conclusion, steps: [{ name: "Type check", conclusion }] }],
  };
}

function log(lines: readonly string[]): string {
  return `${lines.map((l, i) => `build\tType check\t2026-11-01T10:00:${String(i).padStart(2, "0")}.0000000Z ${l}`).join("\n")}\n`;
}

/** Write the workspace into `dir` (which must exist or be creatable). */
export function writeWorkspace(dir: string): void {
  for (const d of ["runs", "logs", "prs", "tickets"]) mkdirSync(join(dir, d), { recursive: true });
  const w = (p: string, v: unknown) =>
    writeFileSync(join(dir, p), typeof v === "string" ? v : JSON.stringify(v, null, 2));
  w("runs/1037.json", run(1037, "failure", "2026-11-01T09:00:00Z"));
  w(
    "logs/1037.log",
    log([
      "##[group]Run npx tsc --noEmit",
      "npx tsc --noEmit",
      "##[endgroup]",
      SIG,
      "##[error]Process completed with exit code 2.",
    ]),
  );
  w("runs/1042.json", run(1042, "failure", "2026-11-02T09:00:00Z"));
  w(
    "logs/1042.log",
    log([
      "##[group]Run npm run typecheck",
      "> app@1.0.0 typecheck",
      "> tsc --noEmit",
      "##[endgroup]",
      SIG,
      "src/cache.ts(20,3): error TS2345: Argument of type 'string' is not assignable to parameter of type 'number'.",
      "npm ERR! code ELIFECYCLE",
      "##[error]Process completed with exit code 2.",
    ]),
  );
  w("runs/1050.json", run(1050, "success", "2026-11-03T09:00:00Z"));
  w("runs/1061.json", run(1061, "failure", "2026-11-04T09:00:00Z"));
  w(
    "logs/1061.log",
    log([
      "Running smoke checks",
      "smoke: 3 of 4 endpoints answered",
      "npm ERR! code ELIFECYCLE",
      "##[error]Process completed with exit code 1.",
    ]),
  );
  w("tickets/INC-7.json", {
    id: "INC-7",
    title: "Cache build breaks",
    status: "closed",
    url: "https://tracker.example/INC-7",
    body: `Builds fail with:\n\n${SIG}\n`,
  });
  w("prs/51.json", {
    number: 51,
    title: "Fix cache key typing",
    body: "The cache key was a string.\n\nFixes INC-7.",
    author: { login: "dana" },
    state: "MERGED",
    mergedAt: "2026-11-02T12:00:00Z",
    url: "https://git.example/pr/51",
    files: [{ path: "src/cache.ts", additions: 1, deletions: 1 }],
    headRefName: "fix-cache",
    baseRefName: "main",
  });
  w(
    "prs/51.diff",
    "diff --git a/src/cache.ts b/src/cache.ts\nindex 1111111..2222222 100644\n--- a/src/cache.ts\n+++ b/src/cache.ts\n@@ -10,7 +10,7 @@ export function key(id: string) {\n   // keys are numbers\n-  const key: number = id;\n+  const key: number = Number(id);\n   return key;\n",
  );
  w("prs/52.json", {
    number: 52,
    title: "Docs: explain cache keys",
    body: "No ticket.",
    author: { login: "lee" },
    state: "OPEN",
    url: "https://git.example/pr/52",
    files: [],
    headRefName: "docs",
    baseRefName: "main",
  });
  w(
    "prs/52.diff",
    "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1,2 +1,3 @@\n # app\n+Cache keys are numbers.\n",
  );
}
