// bench/review (issue 21): how `tessera review list` (pending only, the reviewer's queue) grows with
// the history a gateway accumulates — 0, 10,000, 100,000 and 1,000,000 past reviews behind the same
// 20 pending ones — against `node -e 0` (the limit) and against the path before (load every row,
// read each with reviewOf, filter in JS), all run in alternation in one process so load on the
// machine hits every side alike. Target: at 1M past rows at most 2× its own time at 0.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { openGatewayStore } from "../dist/review/open.js";
import { figure, median, orderOf, printResult } from "./lib.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist", "cli", "main.js");
const dir = mkdtempSync(join(tmpdir(), "tessera-bench-review-"));
const SIZES = [0, 10_000, 100_000, 1_000_000];
const RUNS = Number(process.env.REVIEW_RUNS ?? 11);
const DAY = 86_400_000;
const NOW = Date.now();

// Past row i (1…n), held 2 days and (n - i) s ago: consumed, denied, expired, pending past its
// deadline (with and without an expiry) and approvals past theirs, as a year of use leaves them.
const past = (n) => {
  const created = `(${NOW - 2 * DAY} - (${n} - i) * 1000)`;
  const k = "(i % 10)";
  return `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${n})
  INSERT INTO gateway_reviews (id, state, tool, arguments_digest, policy_digest, effective_digest, context_digest,
    arguments_json, reasons_json, approval_ttl_ms, created_at, decided_at, decided_by, expires_at, consumed_at)
  SELECT 'rv_p' || printf('%011x', i),
    CASE WHEN ${k} < 5 THEN 'consumed' WHEN ${k} < 7 THEN 'denied' WHEN ${k} = 7 THEN 'expired' WHEN ${k} = 8 THEN 'pending' ELSE 'approved' END,
    'tool_' || (i % 7), 'sha256:a' || printf('%011x', i), 'sha256:policy', '', 'sha256:context', '{"order_id":' || i || '}',
    '[{"kind":"needs_judgment","argument":"order_id","check":1,"source":"billing","status":"mismatch","codes":["not_equal"],"message":null}]',
    60000, ${created}, CASE WHEN ${k} <> 8 THEN ${created} + 500 END, CASE WHEN ${k} <> 8 THEN 'ada' END,
    CASE WHEN ${k} < 5 OR ${k} = 9 THEN ${created} + 900000 WHEN ${k} = 7 THEN ${created} + ${DAY} WHEN ${k} = 8 AND i % 2 = 0 THEN ${created} + ${DAY} END,
    CASE WHEN ${k} < 5 THEN ${created} + 600 END
  FROM seq`;
};
// the same 20 pending reviews in every store, held in the last 20 minutes
const pending = `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < 20)
  INSERT INTO gateway_reviews (id, state, tool, arguments_digest, policy_digest, effective_digest, context_digest,
    arguments_json, reasons_json, approval_ttl_ms, created_at, expires_at)
  SELECT 'rv_l' || printf('%011x', i), 'pending', 'refund_order', 'sha256:l' || i, 'sha256:policy', '', 'sha256:context',
    '{"order_id":' || i || '}', '[{"kind":"needs_judgment","argument":"order_id","check":1,"source":"billing","status":"mismatch","codes":["not_equal"],"message":null}]',
    60000, ${NOW} - i * 60000, ${NOW} - i * 60000 + ${DAY} FROM seq`;

const stores = [];
for (const n of SIZES) {
  const file = join(dir, `history-${n}.db`);
  await (await openGatewayStore(file)).close(); // the tables and indexes as the gateway makes them
  const db = new Database(file);
  if (n > 0) db.exec(past(n));
  db.exec(pending);
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.close();
  stores.push({ n, file });
}
process.stderr.write(`review bench: stores of ${SIZES.join(", ")} past reviews written\n`);

// the path before: every row read and filtered in JS (the release before these indexes)
const naive = (file) => `
  const { default: Database } = await import("better-sqlite3");
  const { reviewOf } = await import(${JSON.stringify(join(root, "dist", "review", "records.js"))});
  const db = new Database(${JSON.stringify(file)}, { readonly: true });
  const rows = db.prepare("SELECT * FROM gateway_reviews ORDER BY created_at, id").all();
  const now = Date.now();
  const list = rows.map((r) => reviewOf(r, now)).filter((r) => r.state === "pending");
  if (list.length !== 20) throw new Error("expected 20 pending, got " + list.length);`;

const sides = [{ name: "node", run: () => spawnSync(process.execPath, ["-e", "0"]) }];
for (const { n, file } of stores) {
  sides.push({
    name: `list ${n}`,
    run: () => spawnSync(process.execPath, [cli, "review", "list", "--store", file], { encoding: "utf8" }),
    check: (r) => r.stdout.split("\n").length === 22, // the header, 20 reviews, the last newline
  });
  sides.push({
    name: `naive ${n}`,
    run: () => spawnSync(process.execPath, ["--input-type=module", "-e", naive(file)], { cwd: root, encoding: "utf8" }),
  });
}
for (const s of sides) {
  const r = s.run();
  if (r.status !== 0 || (s.check && !s.check(r)))
    throw new Error(`${s.name}: exit ${r.status}: ${r.stderr}${r.stdout}`);
}
const times = Object.fromEntries(sides.map((s) => [s.name, []]));
for (let round = 0; round < RUNS; round++) {
  for (const k of orderOf(round, sides.length)) {
    const s = sides[k];
    // the naive path at a million rows takes seconds: three rounds of it are enough
    if (s.name === "naive 1000000" && round >= 3) continue;
    const t = process.hrtime.bigint();
    s.run();
    times[s.name].push(Number(process.hrtime.bigint() - t));
  }
}
rmSync(dir, { recursive: true, force: true });

const node = median(times.node);
const at = (n) => median(times[`list ${n}`]);
const figures = SIZES.map((n) =>
  figure({
    figure: `\`tessera review list\` (20 pending) with ${n.toLocaleString("en-US")} past reviews in the store, median of ${RUNS}`,
    value: at(n),
    unit: "ns",
    limitName: "`node -e 0`",
    limitValue: node,
    peers: [
      {
        name: "the path before (every row loaded and filtered in JS, as a node script)",
        value: median(times[`naive ${n}`]),
      },
    ],
  }),
);
figures.push(
  figure({
    figure: "`tessera review list` at 1,000,000 past reviews, against itself at 0",
    value: at(1_000_000),
    unit: "ns",
    limitName: "`tessera review list` at 0 past reviews",
    limitValue: at(0),
    target: { ratio: 2 },
    peers: [{ name: "the path before at 1,000,000", value: median(times["naive 1000000"]) }],
  }),
);
const result = { name: "review", figures };
printResult(result);
console.log(`RESULT ${JSON.stringify(result)}`);
