// Costs that grow with history (issue 21): `ground(dir, q)` on an unchanged workspace and
// `groundQuestion` alone, at 500, 5,000 and 50,000 runs, every workspace open in this one process
// and every contender sampled in rotation (bench/lib.mjs `orderOf`), so machine load hits all alike.
//   - ground(dir, q): the API path (open the store, refresh, answer, close) against
//     `groundQuestion` on an open workspace of the same size; a peer is the full refresh the
//     folder watch skips (adr/0110). Target at 50,000 runs: ≤ 2× and under 30 ms.
//   - groundQuestion at each size against groundQuestion at 5,000 runs: logarithmic growth allows
//     log(50,000)/log(5,000) = 1.27× at 50,000; a peer is the earlier-log search as the full scan
//     the term index replaced (run on the same store).
// TESSERA_BENCH_SCALE_SIZES overrides the sizes (comma-separated run counts; 5000 must be one).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { figure, median, orderOf, printResult } from "./lib.mjs";
import { SIGNATURES, seeded } from "./ci-workload.mjs";

const dist = new URL("../dist/", import.meta.url);
const { openWorkspace } = await import(new URL("evidence/index.js", dist).href);
const { ground, groundQuestion } = await import(new URL("answers/index.js", dist).href);
const { containsNormalized, normalize } = await import(new URL("core/index.js", dist).href);

const SIZES = (process.env.TESSERA_BENCH_SCALE_SIZES ?? "500,5000,50000").split(",").map(Number);
const BASE = 5000;
if (!SIZES.includes(BASE)) throw new Error(`TESSERA_BENCH_SCALE_SIZES must include ${BASE}`);

const rand = seeded(11);
const SIGS = SIGNATURES;

/** `runs` runs (four in five failed, each with a short log ending in one of 60 signatures), 100 tickets, 200 PRs. */
function generate(dir, runs) {
  for (const d of ["runs", "logs", "prs", "tickets"]) mkdirSync(join(dir, d), { recursive: true });
  const failed = [];
  for (let i = 0; i < runs; i++) {
    const id = 100000 + i;
    const fail = i % 5 !== 0;
    writeFileSync(
      join(dir, "runs", `${id}.json`),
      JSON.stringify({
        databaseId: id,
        displayTitle: `change ${i}`,
        workflowName: "CI",
        conclusion: fail ? "failure" : "success",
        status: "completed",
        createdAt: new Date(Date.UTC(2026, 0, 1) + i * 600_000).toISOString(),
        jobs: [{ name: "test", conclusion: fail ? "failure" : "success", steps: [] }],
      }),
    );
    if (!fail) continue;
    failed.push(id);
    const lines = [];
    for (let n = 0; n < 12; n++) lines.push(`✓ test/suite${n}.test.ts > case ${n} ${Math.floor(rand() * 1e6)}`);
    lines.push(SIGS[Math.floor(rand() * SIGS.length)], "##[error]Process completed with exit code 1.");
    writeFileSync(
      join(dir, "logs", `${id}.log`),
      lines.map((l, n) => `test\tRun tests\t2026-01-01T00:00:${String(n).padStart(2, "0")}.0000000Z ${l}\n`).join(""),
    );
  }
  for (let t = 0; t < 100; t++)
    writeFileSync(
      join(dir, "tickets", `BENCH-${t}.json`),
      JSON.stringify({ id: `BENCH-${t}`, title: `incident ${t}`, body: `Seen in CI:\n\n    ${SIGS[t % SIGS.length]}` }),
    );
  for (let p = 1; p <= 200; p++)
    writeFileSync(
      join(dir, "prs", `${p}.json`),
      JSON.stringify({ number: p, title: `fix ${p}`, body: `Fixes BENCH-${p % 100}.`, state: "MERGED", files: [] }),
    );
  return failed;
}

/** The earlier-log search as it was before the term index: every stored log line of every earlier run. */
function scanSearch(db) {
  const earlier = db.prepare(
    `SELECT r.owner, r.norm FROM records r CROSS JOIN runs u ON u.id = r.owner
      WHERE r.type = 'log' AND instr(r.norm, ?) > 0 AND (u.created_at < ? OR (u.created_at = ? AND (length(u.id) < length(?) OR (length(u.id) = length(?) AND u.id < ?))))
      ORDER BY u.created_at DESC, length(u.id) DESC, u.id DESC, r.seq`,
  );
  const created = db.prepare("SELECT created_at FROM runs WHERE id = ?");
  return (text, id) => {
    const f = normalize(text);
    const at = created.get(id).created_at;
    const seen = new Set();
    for (const r of earlier.iterate(f, at, at, id, id, id)) {
      if (seen.has(r.owner) || !containsNormalized(f, r.norm)) continue;
      seen.add(r.owner);
      if (seen.size >= 3) break;
    }
    return seen.size;
  };
}

const load0 = loadavg()[0];
const sizes = [];
for (const runs of SIZES) {
  const dir = mkdtempSync(join(tmpdir(), `tessera-bench-scale-${runs}-`));
  process.stderr.write(`generating and ingesting ${runs} runs in ${dir}…\n`);
  const failed = generate(dir, runs);
  (await openWorkspace(dir)).close();
  const ws = await openWorkspace(dir, { refresh: false });
  const questions = failed.filter((_, i) => i % 7 === 0).map((id) => `why did run ${id} fail?`);
  const db = new Database(join(dir, ".tessera", "evidence.db"), { readonly: true });
  const scan = scanSearch(db);
  const sigs = questions.map((q) => {
    const id = q.match(/\d+/)[0];
    return [ws.signature(id).record.text.trim(), id];
  });
  // the same answer through the API and on the open workspace, and a recurring failure cited
  const probe = questions[questions.length - 1];
  const viaApi = await ground(dir, probe);
  if (JSON.stringify(viaApi) !== JSON.stringify(groundQuestion(ws, probe))) throw new Error("ground ≠ groundQuestion");
  if (!viaApi.claims.some((c) => c.role === "prior_occurrence")) throw new Error("no recurring failure in the probe");
  sizes.push({ runs, dir, ws, db, questions, scan, sigs, k: 0 });
}

// contenders: [size index, name, fn(i), batch]
const contenders = [];
for (const [s, z] of sizes.entries()) {
  const q = (i) => z.questions[i % z.questions.length];
  contenders.push([s, "groundQuestion", (i) => groundQuestion(z.ws, q(i)), 20]);
  contenders.push([s, "ground", (i) => ground(z.dir, q(i)), 10]);
  contenders.push([s, "index", (i) => z.ws.findInEarlierLogs(...z.sigs[i % z.sigs.length], 3), 20]);
  contenders.push([s, "scan", (i) => z.scan(...z.sigs[i % z.sigs.length]), z.runs > 10000 ? 2 : 10]);
}
const times = contenders.map(() => []);
let k = 0;
for (const [, , fn] of contenders) for (let i = 0; i < 20; i++) await fn(i); // warm
const ROUNDS = 15;
for (let r = 0; r < ROUNDS; r++) {
  for (const c of orderOf(r, contenders.length)) {
    const [, , fn, batch] = contenders[c];
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < batch; i++) await fn(k + i);
    times[c].push(Number(process.hrtime.bigint() - t0) / batch);
  }
  k += 20;
}
// the full refresh last: it rewrites the store, so the next ground(dir, q) would refresh in full too
for (const [s, z] of sizes.entries()) {
  const per = [];
  for (let r = 0; r < 5; r++) {
    const t0 = process.hrtime.bigint();
    z.ws.refresh();
    per.push(Number(process.hrtime.bigint() - t0));
  }
  contenders.push([s, "refresh"]);
  times.push(per);
}
const med = (s, name) => median(times[contenders.findIndex(([i, n]) => i === s && n === name)]);
const baseIdx = sizes.findIndex((z) => z.runs === BASE);
const figures = [];
for (const [s, z] of sizes.entries()) {
  const gq = med(s, "groundQuestion");
  figures.push(
    figure({
      figure: `ground(dir, q) (API, unchanged workspace, ${z.runs} runs)`,
      value: med(s, "ground"),
      unit: "ns",
      limitName: `groundQuestion on the open workspace (${z.runs} runs)`,
      limitValue: gq,
      target: z.runs === Math.max(...SIZES) ? { ratio: 2, max: 30e6 } : undefined,
      peers: [
        { name: "the full refresh the folder watch skips (stat every file, summarize)", value: med(s, "refresh") },
      ],
    }),
  );
}
for (const [s, z] of sizes.entries()) {
  const growth = Math.log(z.runs) / Math.log(BASE);
  figures.push(
    figure({
      figure: `groundQuestion (rca, ${z.runs} runs)`,
      value: med(s, "groundQuestion"),
      unit: "ns",
      limitName: `groundQuestion at ${BASE} runs, same run`,
      limitValue: med(baseIdx, "groundQuestion"),
      target: z.runs > BASE ? { ratio: growth } : undefined,
      peers: [
        { name: "the earlier-log search alone, through the term index", value: med(s, "index") },
        { name: "the earlier-log search alone as the full scan it was", value: med(s, "scan") },
      ],
    }),
  );
}
for (const z of sizes) {
  z.ws.close();
  z.db.close();
  if (!process.env.TESSERA_BENCH_KEEP) rmSync(z.dir, { recursive: true, force: true });
}
const result = {
  name: "ground-scale",
  workload: `${SIZES.join(" / ")} runs (4 in 5 failed, 14-line logs, 60 signatures); load average ${load0.toFixed(1)} → ${loadavg()[0].toFixed(1)} on ${cpus().length} cores`,
  figures,
};
printResult(result);
console.log(`RESULT ${JSON.stringify(result)}`);
