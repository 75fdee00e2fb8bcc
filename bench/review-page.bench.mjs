// bench/review-page: `tessera review serve` as a process over a SQLite store holding 10,000 pending
// holds. Figures: the queue's first screen (GET /, the first page of 50, as a signed-in reviewer)
// against a static answer of the same server (GET /app.js, the HTTP floor), and the server's peak
// RSS against a bare idle node process's. Targets: under 200 ms and at most 100 MB.
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { figure, median, printResult } from "./lib.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const cli = join(root, "dist", "cli", "main.js");
const { openGatewayStore } = await import(join(root, "dist", "review", "open.js"));
const { HOLD_COLUMNS, holdValues } = await import(join(root, "dist", "review", "records.js"));
const HOLDS = 10_000;
const TOKEN = "bench-review-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "tessera-bench-review-page-"));
const file = join(dir, "gateway.db");

// the store made as the gateway makes it, then 10,000 holds written in one transaction
const store = await openGatewayStore(file);
const now = Date.now();
const held = (i) => ({
  tool: i % 5 === 0 ? "cancel_order" : "refund_order",
  arguments_digest: store.reviews.digest({ order_id: i }),
  policy_digest: `sha256:${"a".repeat(64)}`,
  effective_digest: "",
  context_digest: store.reviews.digest({ customer_id: "c-1" }),
  arguments: { order_id: i, amount_cents: 4999, note: "customer says the parcel never came" },
  reasons: [
    {
      kind: "needs_judgment",
      argument: "order_id",
      check: 1,
      source: "billing",
      status: "mismatch",
      codes: ["not_equal"],
      message: 'status not_equal (value "delivered")',
    },
  ],
  approval_ttl_ms: 900_000,
  review_ttl_ms: 86_400_000,
  explained: {
    checks: [
      {
        argument: "order_id",
        check: 1,
        source: "billing",
        status: "mismatch",
        outcome: "hold",
        attempts: 1,
        rows: 1,
        conditions: [
          {
            column: "status",
            value: "delivered",
            ok: false,
            code: "not_equal",
            expected: "delivered",
            actual: "shipped",
          },
        ],
        value: i,
      },
    ],
    context_keys: ["customer_id"],
  },
});
await store.close();
const db = new Database(file);
const insert = db.prepare(
  `INSERT INTO gateway_reviews (${HOLD_COLUMNS}, state) VALUES (${HOLD_COLUMNS.split(",")
    .map(() => "?")
    .join(", ")}, 'pending')`,
);
db.transaction(() => {
  for (let i = 0; i < HOLDS; i++) insert.run(...holdValues(held(i), now - (HOLDS - i) * 1000));
})();
db.close();

const serve = spawn(process.execPath, [cli, "review", "serve", "--port", "0", "--store", file], {
  env: { PATH: process.env.PATH ?? "", TESSERA_REVIEW_TOKEN: TOKEN },
  stdio: ["ignore", "ignore", "pipe"],
});
const port = await new Promise((resolve, reject) => {
  let err = "";
  serve.stderr.setEncoding("utf8").on("data", (c) => {
    err += c;
    const m = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(err);
    if (m) resolve(Number(m[1]));
  });
  serve.once("exit", (code) => reject(new Error(`review serve exited ${code}: ${err}`)));
});

const get = (path) =>
  new Promise((resolve, reject) => {
    const t = process.hrtime.bigint();
    const req = request({ host: "127.0.0.1", port, path, headers: { authorization: `Bearer ${TOKEN}` } }, (res) => {
      let body = "";
      res.setEncoding("utf8").on("data", (c) => (body += c));
      res.on("end", () => {
        if (res.statusCode !== 200) reject(new Error(`GET ${path}: ${res.statusCode}`));
        else resolve({ ns: Number(process.hrtime.bigint() - t), body });
      });
    });
    req.on("error", reject);
    req.end();
  });

const first = await get("/");
if (!first.body.includes(`${HOLDS} pending reviews`) || (first.body.match(/<tr>/g) ?? []).length < 50)
  throw new Error("the queue's first screen does not show the first page of 10,000 holds");
const times = { queue: [], floor: [], filtered: [] };
for (let i = 0; i < 31; i++) {
  times.floor.push((await get("/app.js")).ns);
  times.queue.push((await get("/")).ns);
  times.filtered.push((await get("/?tool=cancel_order&page=20")).ns);
}
const rssOf = (pid, key) =>
  Number(
    /(\d+) kB/.exec(
      readFileSync(`/proc/${pid}/status`, "utf8")
        .split("\n")
        .find((l) => l.startsWith(key)),
    )[1],
  ) / 1024;
const peak = rssOf(serve.pid, "VmHWM:");
serve.kill("SIGTERM");

const idle = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000); console.log('up')"], {
  stdio: ["ignore", "pipe", "ignore"],
});
await new Promise((resolve) => idle.stdout.once("data", resolve));
const idleRss = rssOf(idle.pid, "VmRSS:");
idle.kill();
rmSync(dir, { recursive: true, force: true });

const result = {
  name: "review-page",
  figures: [
    figure({
      figure: `the queue's first screen with ${HOLDS.toLocaleString("en")} pending holds (GET /, first page of 50, SQLite store), median of 31 round trips`,
      value: median(times.queue),
      unit: "ns",
      limitName: "GET /app.js from the same server (a static answer)",
      limitValue: median(times.floor),
      target: { max: 200e6 },
      peers: [{ name: "GET /?tool=cancel_order&page=20 (filtered, page 20)", value: median(times.filtered) }],
    }),
    figure({
      figure: `\`review serve\` peak RSS after serving those pages (${HOLDS.toLocaleString("en")} holds)`,
      value: peak,
      unit: "MB",
      limitName: "an idle `node` process",
      limitValue: idleRss,
      target: { max: 100 },
    }),
  ],
};
printResult(result);
console.log(`RESULT ${JSON.stringify(result)}`);
