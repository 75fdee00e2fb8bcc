// Differential test: the earlier-log search through the term index (src/evidence/workspace/terms.ts)
// returns exactly what the full scan it replaced returns (naive-earlier.ts), over generated
// workspaces with tied timestamps, ids of several lengths, logs without runs, runs without logs,
// near-miss lines (a shared prefix, a longer token) and refreshes that move, drop and restore runs.
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openWorkspace, type Workspace } from "../../src/evidence/index.js";
import { ghLog, makeWorkspace, runJson } from "./helpers.js";
import { naiveEarlier } from "./naive-earlier.js";

let seed = 1;
const rand = (): number => {
  seed = (seed * 1103515245 + 12345) % 2147483648;
  return seed / 2147483648;
};
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

// two tokens longer than the 200 characters a term keeps, sharing those 200: one term, two texts
const LONG_A = `${"x".repeat(200)}aaaa`;
const LONG_B = `${"x".repeat(200)}bbbb`;
const WORDS = [
  "error",
  "timeout",
  "db",
  "shard",
  "1",
  "12",
  "a",
  "ab",
  "refused",
  "Error:",
  "E",
  "[Errno",
  "111]",
  LONG_A,
  LONG_B,
];
const line = (): string => Array.from({ length: 1 + Math.floor(rand() * 5) }, () => pick(WORDS)).join(" ");
const TIMES = ["2026-01-01T00:00:00Z", "2026-01-01T00:00:00Z", "2026-01-02T00:00:00Z", "2026-01-03T00:00:00Z"];
const IDS = ["7", "8", "70", "71", "700", "9", "80", "701", "69"];

function generate(): string {
  const files: Record<string, string> = {};
  for (const id of IDS) {
    if (rand() < 0.85) files[`runs/${id}.json`] = runJson(Number(id), "failure", pick(TIMES));
    if (rand() < 0.85)
      files[`logs/${id}.log`] = ghLog([
        ...Array.from({ length: 2 + Math.floor(rand() * 6) }, line),
        "##[error]Process completed with exit code 1.",
      ]);
  }
  return makeWorkspace(files);
}

function compareAll(dir: string, ws: Workspace): number {
  const db = new Database(join(dir, ".tessera", "evidence.db"), { readonly: true });
  let compared = 0;
  try {
    // the counts that pick the rarest term are the postings' own counts, after any refresh
    const counts = db.prepare("SELECT term, n FROM term_counts WHERE n <> 0 ORDER BY term").all();
    expect(counts).toEqual(db.prepare("SELECT term, count(*) AS n FROM log_terms GROUP BY term ORDER BY term").all());
    const fragments = new Set<string>([
      "error",
      "E [Errno 111]",
      "db",
      "1",
      "Process completed with exit code 1.",
      "nothing like it",
    ]);
    for (let i = 0; i < 12; i++) fragments.add(line());
    for (const run of ws.listRuns()) {
      const sig = ws.signature(run.id);
      if (sig !== undefined) fragments.add(sig.record.text);
    }
    for (const run of [...IDS, "404"])
      for (const f of fragments)
        for (const limit of [0, 1, 3, 9]) {
          expect(ws.findInEarlierLogs(f, run, limit), `${f} before ${run}, limit ${limit}`).toEqual(
            naiveEarlier(db, f, run, limit),
          );
          compared++;
        }
  } finally {
    db.close();
  }
  return compared;
}

describe("the earlier-log search through the term index", () => {
  it("finds what the full scan finds, on generated workspaces and across refreshes", async () => {
    let found = 0;
    for (let w = 0; w < 8; w++) {
      const dir = generate();
      const ws = await openWorkspace(dir);
      try {
        compareAll(dir, ws);
        // move a run in time, drop a log, drop a run file, then bring the log back
        writeFileSync(join(dir, "runs", "70.json"), runJson(70, "failure", pick(TIMES)));
        rmSync(join(dir, "logs", "8.log"), { force: true });
        rmSync(join(dir, "runs", "9.json"), { force: true });
        ws.refresh();
        compareAll(dir, ws);
        writeFileSync(join(dir, "logs", "8.log"), ghLog(["E [Errno 111] refused", "error timeout db"]));
        writeFileSync(join(dir, "runs", "9.json"), runJson(9, "failure", pick(TIMES)));
        ws.refresh();
        compareAll(dir, ws);
        for (const id of IDS) found += ws.findInEarlierLogs("error", id, 9).length;
      } finally {
        ws.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
    // the generator produces recurring lines: the comparison is not between two empty answers
    expect(found).toBeGreaterThan(50);
  });
});
