/**
 * `tessera ingest git`: export a range of plain git history into a workspace as
 * `commits/<sha>.json` (subject, body, author, date) and `commits/<sha>.diff` (the commit's patch
 * against its first parent), using the `git` binary. The workspace then ingests them like any file.
 * @module
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { TesseraError } from "../platform/errors.js";

/** What an export wrote. */
export interface GitExport {
  /** Full shas, oldest first. */
  readonly commits: readonly string[];
}

const RANGE = /^[^\s-][^\s]*\.\.\.?[^\s-]?[^\s]*$/;

function git(repo: string, args: readonly string[]): string {
  try {
    return execFileSync("git", ["-C", repo, ...args], {
      encoding: "utf8",
      maxBuffer: 512 * 2 ** 20,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (err) {
    const e = err as { code?: string; stderr?: string; message?: string };
    if (e.code === "ENOENT") throw new TesseraError("git_not_found", "the `git` binary was not found on PATH");
    const first = (e.stderr ?? e.message ?? "").trim().split("\n")[0] ?? "";
    throw new TesseraError("git_failed", `git ${args[0]} failed: ${first.replace(/\.$/, "")}`);
  }
}

/**
 * Write the commits of `range` (`A..B`) in `repo` into the workspace folder `into`.
 * @example exportGitRange("../app", "v1.2.0..v1.3.0", "workspace")
 */
export function exportGitRange(repo: string, range: string, into: string): GitExport {
  if (!RANGE.test(range)) throw new TesseraError("usage_error", `range \`${range}\` must look like \`A..B\``);
  const shas = git(repo, ["rev-list", "--reverse", range, "--"])
    .split("\n")
    .filter((s) => s !== "");
  const dir = join(into, "commits");
  mkdirSync(dir, { recursive: true });
  for (const sha of shas) {
    const meta = git(repo, ["show", "-s", "--no-color", "--format=%H%x00%an <%ae>%x00%aI%x00%s%x00%b", sha, "--"]);
    const [full = sha, author = "", date = "", subject = "", body = ""] = meta.replace(/\n$/, "").split("\u0000");
    const doc = { sha: full, subject, body: body.trim(), author, date };
    writeFileSync(join(dir, `${full}.json`), `${JSON.stringify(doc, null, 2)}\n`);
    const patch = git(repo, [
      "diff-tree",
      "-p",
      "--no-color",
      "--no-ext-diff",
      "--no-commit-id",
      "--root",
      "-m",
      "--first-parent",
      full,
      "--",
    ]);
    if (patch.trim() !== "") writeFileSync(join(dir, `${full}.diff`), patch);
  }
  return { commits: shas };
}
