/**
 * What a workspace store reports after a refresh: the counts and every problem, sorted.
 * @module
 */
import { FAILED_CONCLUSIONS } from "../readers.js";
import type { StoreContext } from "./store.js";
import type { IngestProblem, IngestSummary } from "./types.js";

/**
 * The summary of a store: its counts and every problem, per file and across files (a failed run
 * without its log, a log without its run, a diff without its change). `unchanged` null: the store
 * as found, every ingested file counted unchanged.
 */
export function summarize(s: StoreContext, read: number, unchanged: number | null, removed: number): IngestSummary {
  const problems: IngestProblem[] = [];
  let skipped = 0;
  let files = 0;
  for (const f of s.q.files.all()) {
    files++;
    if (f.skipped) skipped++;
    problems.push(...(JSON.parse(f.problems) as IngestProblem[]));
  }
  // cross-file problems: a failed run without its log, a log without its run
  const logs = new Set(
    s.db
      .prepare<[], { run: string }>("SELECT run FROM logs")
      .all()
      .map((r) => r.run),
  );
  const runs = s.db.prepare<[], { id: string; file: string; conclusion: string }>(
    "SELECT id, file, json_extract(info, '$.conclusion') AS conclusion FROM runs",
  );
  for (const row of runs.all()) {
    if (FAILED_CONCLUSIONS.includes(row.conclusion) && !logs.has(row.id)) {
      problems.push({
        file: row.file,
        code: "run_without_log",
        message: `failed run \`${row.id}\` has no log (logs/${row.id}.log)`,
      });
    }
  }
  for (const row of s.db
    .prepare<[], { run: string; file: string }>(
      "SELECT l.run, l.file FROM logs l LEFT JOIN runs u ON u.id = l.run WHERE u.id IS NULL",
    )
    .all()) {
    problems.push({
      file: row.file,
      code: "log_without_run",
      message: `log of run \`${row.run}\` has no run file (runs/${row.run}.json); it cannot be analysed`,
    });
  }
  const orphanDiffs = s.db.prepare<[], { file: string; owner: string }>(
    `SELECT DISTINCT h.file, h.owner FROM records h
      WHERE h.type = 'hunk' AND NOT EXISTS (SELECT 1 FROM records c WHERE c.id = (CASE WHEN h.file LIKE 'prs/%' THEN 'pr:' ELSE 'commit:' END) || h.owner)`,
  );
  for (const row of orphanDiffs.all()) {
    const what = row.file.startsWith("prs/")
      ? `pull request \`${row.owner}\` (prs/${row.owner}.json)`
      : `commit \`${row.owner}\` (commits/${row.owner}.json)`;
    problems.push({
      file: row.file,
      code: "diff_without_change",
      message: `diff of ${what} has no metadata file; it cannot be summarized`,
    });
  }
  problems.sort((a, b) =>
    a.file < b.file ? -1 : a.file > b.file ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0,
  );
  return {
    files,
    read,
    unchanged: unchanged ?? files - skipped,
    skipped,
    removed,
    records: s.q.count.get()!.n,
    problems,
  };
}
