// Workspace ingest and grounded answers (issue 5). Side by side in one run:
//   - ingest throughput of CI logs (MB/s) against `wc -l` over the same files: the I/O limit;
//   - peak memory (RSS) of the ingest process against a bare Node process that loads the module;
//   - `ground` latency per question over a workspace of 5,000 runs, against the store reads the
//     answer cannot avoid (run, stored log lines, signature, the earlier-log, ticket and PR searches),
//     so the ratio is the cost of assembling and verifying the claims.
// Targets from the issue: ingest within 5× of wc -l, peak memory under 300 MB, ground under 20 ms.
// The workspace is generated into a temp folder; TESSERA_BENCH_GROUND_MB sets the log volume
// (default 50; the figure is 200), TESSERA_BENCH_GROUND_RUNS the run count (default 5000).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { figure, median, printResult, timePerCallSync } from "./lib.mjs";

const MB = Number(process.env.TESSERA_BENCH_GROUND_MB ?? 50);
const RUNS = Number(process.env.TESSERA_BENCH_GROUND_RUNS ?? 5000);
const dist = new URL("../dist/", import.meta.url);

let seed = 7;
const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const SIGS = Array.from({ length: 60 }, (_, i) => [
  `src/mod${i}.ts(12,5): error TS2322: Type 'string' is not assignable to type 'Money${i}'.`,
  `E   ConnectionRefusedError: [Errno 111] Connection refused on shard ${i}`,
  `--- FAIL: TestCase${i} (0.00s)`,
  `error[E0308]: mismatched types in module_${i}`,
][i % 4]);

function generate(dir) {
  for (const d of ["runs", "logs", "prs", "tickets"]) mkdirSync(join(dir, d), { recursive: true });
  const failed = [];
  for (let i = 0; i < RUNS; i++) {
    const id = 100000 + i;
    const fail = i % 5 !== 0;
    if (fail) failed.push(id);
    const created = new Date(Date.UTC(2026, 0, 1) + i * 600_000).toISOString();
    writeFileSync(join(dir, "runs", `${id}.json`), JSON.stringify({ databaseId: id, displayTitle: `change ${i}`, workflowName: "CI", conclusion: fail ? "failure" : "success", status: "completed", headBranch: "main", headSha: "0".repeat(40), event: "push", createdAt: created, url: `https://x/${id}`, jobs: [{ name: "test", conclusion: fail ? "failure" : "success", steps: [] }] }));
  }
  // one log in ten is ten times larger, so some logs are several MB at the 200 MB scale
  const weights = failed.map((_, k) => (k % 10 === 0 ? 10 : 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const bytesPer = (MB * 2 ** 20) / total;
  let written = 0;
  failed.forEach((id, k) => {
    const target = bytesPer * weights[k];
    const parts = [];
    let size = 0;
    let n = 0;
    const sig = SIGS[Math.floor(rand() * SIGS.length)];
    const failAt = Math.floor(target * 0.8);
    let placed = false;
    while (size < target) {
      let line;
      if (!placed && size >= failAt) {
        line = sig;
        placed = true;
      } else {
        line = `\u001b[32m✓\u001b[39m test/suite${n % 40}.test.ts > case ${n} handles input ${Math.floor(rand() * 1e6)} \u001b[2m${n % 17}ms\u001b[22m`;
      }
      const full = `test\tRun tests\t2026-01-01T00:00:${String(n % 60).padStart(2, "0")}.1234567Z ${line}\n`;
      parts.push(full);
      size += full.length;
      n++;
    }
    if (!placed) parts.push(`test\tRun tests\t2026-01-01T00:00:00.0000000Z ${sig}\n`);
    parts.push("test\tRun tests\t2026-01-01T00:00:59.0000000Z ##[error]Process completed with exit code 1.\n");
    const text = parts.join("");
    written += Buffer.byteLength(text);
    writeFileSync(join(dir, "logs", `${id}.log`), text);
  });
  for (let t = 0; t < 100; t++) {
    writeFileSync(join(dir, "tickets", `BENCH-${t}.json`), JSON.stringify({ id: `BENCH-${t}`, title: `incident ${t}`, body: `Seen in CI:\n\n    ${SIGS[t % SIGS.length]}`, status: "open", url: "u" }));
  }
  for (let p = 1; p <= 200; p++) {
    writeFileSync(join(dir, "prs", `${p}.json`), JSON.stringify({ number: p, title: `fix ${p}`, body: `Fixes BENCH-${p % 100}.`, author: { login: "dev" }, state: "MERGED", files: [] }));
  }
  return { failed, bytes: written };
}

const dir = mkdtempSync(join(tmpdir(), "tessera-bench-ground-"));
process.stderr.write(`generating ${RUNS} runs with ${MB} MB of logs in ${dir}…\n`);
const { failed, bytes } = generate(dir);
const logFiles = readdirSync(join(dir, "logs")).map((f) => join(dir, "logs", f));
const mb = bytes / 2 ** 20;

// ingest in a child process, from an empty store, so its peak RSS is its own
const child = `
const { openWorkspace } = await import(${JSON.stringify(new URL("evidence/index.js", dist).href)});
const t0 = process.hrtime.bigint();
const ws = await openWorkspace(process.argv[1]);
const s = ws.summary;
ws.close();
const sec = Number(process.hrtime.bigint() - t0) / 1e9;
const u = process.resourceUsage();
console.log(JSON.stringify({ sec, cpuSec: (u.userCPUTime + u.systemCPUTime) / 1e6, rssKb: u.maxRSS, files: s.files, skipped: s.skipped, records: s.records }));`;
const baseline = `await import(${JSON.stringify(new URL("evidence/index.js", dist).href)}); await import("better-sqlite3"); console.log(JSON.stringify({ rssKb: process.resourceUsage().maxRSS }));`;
// I/O limit: wc -l over the same files (page cache warmed by a first pass, as for the ingest).
// Rounds interleave wc and ingest, so load from other work on the machine hits both alike.
const wcLines = () => execFileSync("wc", ["-l", ...logFiles], { maxBuffer: 64 * 2 ** 20 });
wcLines();
const wcTimes = [];
const ingestRuns = [];
const loadBefore = loadavg()[0];
for (let i = 0; i < 3; i++) {
  const t0 = process.hrtime.bigint();
  wcLines();
  wcTimes.push(Number(process.hrtime.bigint() - t0) / 1e9);
  rmSync(join(dir, ".tessera"), { recursive: true, force: true });
  const out = spawnSync(process.execPath, ["--input-type=module", "-e", child, dir], { encoding: "utf8", maxBuffer: 16 * 2 ** 20 });
  if (out.status !== 0) throw new Error(`ingest child failed: ${out.stderr}`);
  ingestRuns.push(JSON.parse(out.stdout));
}
const wcMBs = mb / median(wcTimes);
const load = `load average ${loadBefore.toFixed(1)} → ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`;
const base = JSON.parse(spawnSync(process.execPath, ["--input-type=module", "-e", baseline], { encoding: "utf8" }).stdout);
const ingestSec = median(ingestRuns.map((r) => r.sec));
// CPU seconds of the ingest process (module loading included): robust when other work shares the cores
const ingestCpuSec = median(ingestRuns.map((r) => r.cpuSec));
const peakMB = Math.max(...ingestRuns.map((r) => r.rssKb)) / 1024;
if (ingestRuns[0].skipped !== 0) throw new Error("bench workspace had skipped files");

// ground latency over the ingested store
const { openWorkspace } = await import(new URL("evidence/index.js", dist).href);
const { groundQuestion } = await import(new URL("answers/index.js", dist).href);
const ws = await openWorkspace(dir, { refresh: false });
const questions = failed.filter((_, i) => i % 7 === 0).map((id) => `why did run ${id} fail?`);
let grounded = 0;
for (const q of questions.slice(0, 50)) if (groundQuestion(ws, q).grounded) grounded++;
if (grounded !== 50) throw new Error(`only ${grounded} of 50 bench questions grounded`);
const opts = { warmup: 30, samples: 15, batch: 20 };
const groundNs = timePerCallSync((i) => groundQuestion(ws, questions[i % questions.length]), opts);
const readsNs = timePerCallSync((i) => {
  const id = questions[i % questions.length].match(/\d+/)[0];
  ws.getRun(id);
  ws.getRecord(`run:${id}`);
  ws.logLines(id);
  const sig = ws.signature(id);
  const text = sig.record.text.trim();
  ws.findInEarlierLogs(text, id, 3);
  for (const t of ws.search("ticket", text)) ws.search("pr", t.id.slice(7));
}, opts);
ws.close();
if (!process.env.TESSERA_BENCH_KEEP) rmSync(dir, { recursive: true, force: true });

const result = {
  name: "ground",
  workload: `${RUNS} runs, ${failed.length} logs, ${mb.toFixed(1)} MB of logs; ${load}`,
  figures: [
    figure({ figure: `ingest throughput (${mb.toFixed(0)} MB of logs, ${RUNS} runs)`, value: mb / ingestSec, unit: "MB/s", limitName: "wc -l over the same files", limitValue: wcMBs, higherIsBetter: true, target: { ratio: 5 }, peers: [{ name: "ingest by CPU time (user+sys)", value: mb / ingestCpuSec }] }),
    figure({ figure: "ingest peak memory (RSS)", value: peakMB, unit: "MB", limitName: "node + module + better-sqlite3 loaded", limitValue: base.rssKb / 1024, target: { ratio: 10, max: 300 } }),
    figure({ figure: `ground latency (rca, ${RUNS} runs)`, value: groundNs, unit: "ns", limitName: "the store reads and searches the answer needs", limitValue: readsNs, target: { ratio: 5, max: 20e6 } }),
  ],
};
printResult(result);
console.log(`RESULT ${JSON.stringify(result)}`);
