// Differential test: a refresh whose logs are partly scanned on a worker thread (logprefetch.ts)
// stores exactly what a refresh scanning every log on the main thread stores. The worker script
// exists only in the built package, so this runs the built dist/ in child processes (`npm run build`
// first, as for the CLI tests).
import { spawnSync } from "node:child_process";
import { appendFileSync, existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { copyExample, ghLog, runJson } from "./helpers.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const DIST = join(ROOT, "dist", "evidence");

// ingests `dir` from an empty store with the given worker threshold, then prints a digest of every
// stored row (in key order) and of the summary, and whether a worker ran
const CHILD = `
const [dir, minBytes, share] = process.argv.slice(1);
const { rmSync } = await import("node:fs");
const { createHash } = await import("node:crypto");
const { openWorkspace } = await import(${JSON.stringify(`file://${join(DIST, "index.js")}`)});
const pre = await import(${JSON.stringify(`file://${join(DIST, "logprefetch.js")}`)});
pre.prefetchTuning.minBytes = Number(minBytes);
pre.prefetchTuning.share = Number(share);
pre.prefetchTuning.window = 3;
pre.prefetchTuning.windowLines = 2;
rmSync(dir + "/.tessera", { recursive: true, force: true });
const ws = await openWorkspace(dir);
const summary = ws.summary;
ws.close();
const { default: Database } = await import("better-sqlite3");
const db = new Database(dir + "/.tessera/evidence.db", { readonly: true });
const h = createHash("sha256");
// a file's stored time is -1 when it was written too close to the refresh to trust (adr/0110), so it is left out
const rows = ["SELECT * FROM records", "SELECT * FROM runs", "SELECT * FROM logs", "SELECT * FROM log_terms", "SELECT path, size, hash, skipped, problems FROM files"];
for (const q of rows) for (const r of db.prepare(q + " ORDER BY 1, 2, 3").raw().iterate()) h.update(JSON.stringify(r) + "\\n");
db.close();
console.log(JSON.stringify({ digest: h.digest("hex"), summary, workers: pre.prefetchStats.workers }));
`;

function ingest(
  dir: string,
  minBytes: number,
  share = 0.6,
): { digest: string; summary: { records: number; problems: { file: string; code: string }[] }; workers: number } {
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", CHILD, dir, String(minBytes), String(share)], {
    cwd: ROOT,
    encoding: "utf8",
  });
  if (out.status !== 0) throw new Error(`ingest child failed: ${out.stderr}`);
  return JSON.parse(out.stdout) as ReturnType<typeof ingest>;
}

describe("logs scanned on a worker = logs scanned in place", () => {
  it.runIf(existsSync(join(DIST, "scanworker.js")))(
    "for the example workspace with malformed, large and duplicate logs",
    () => {
      const dir = copyExample();
      const big = ghLog([
        "\ufeffE\u00a0\u00a0assert early",
        ...Array.from({ length: 40_000 }, (_, i) => `\u001b[32m✓\u001b[39m line ${i} Type: x`),
        "error TS2322: late",
      ]);
      writeFileSync(join(dir, "runs", "9001.json"), runJson(9001, "failure", "2026-02-01T00:00:00Z"));
      writeFileSync(join(dir, "logs", "9001.log"), big);
      writeFileSync(join(dir, "runs", "9002.json"), runJson(9002, "failure", "2026-02-02T00:00:00Z"));
      writeFileSync(join(dir, "logs", "9002.log"), big);
      appendFileSync(join(dir, "logs", "9002.log"), Buffer.from([0xc3, 0x28, 0x0a])); // invalid past the first read
      writeFileSync(join(dir, "logs", "9003.log"), Buffer.from([0x6f, 0x6b, 0x00])); // binary
      writeFileSync(join(dir, "logs", "9004.log"), ""); // empty
      writeFileSync(join(dir, "logs", "9001.txt"), ghLog(["panic: the other file"])); // duplicate of 9001
      writeFileSync(join(dir, "logs", "bad name.log"), ghLog(["panic: x"])); // invalid id
      try {
        const inPlace = ingest(dir, Number.MAX_SAFE_INTEGER);
        expect(inPlace.workers).toBe(0);
        for (const share of [0.3, 0.6, 1]) {
          const worker = ingest(dir, 0, share);
          expect(worker.workers).toBe(1);
          expect(worker).toEqual({ ...inPlace, workers: 1 });
        }
        const codes = inPlace.summary.problems.map((p) => `${p.file} ${p.code}`);
        for (const c of [
          "logs/9001.txt duplicate_id",
          "logs/9002.log invalid_utf8",
          "logs/9003.log binary_file",
          "logs/9004.log empty_file",
          "logs/bad name.log invalid_id",
        ]) {
          expect(codes).toContain(c);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});
