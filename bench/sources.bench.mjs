// bench/sources: per network adapter, the median decision time through gate.check against the
// adapter's raw client doing the same request in the same run (adr/0042; target ≤ 1.2×).
// "The same request" includes the protections the issue requires of the adapter (adr/0042): the
// raw client is configured as the adapter configures it (pool options, read-only default, statement
// and connection timeouts) and carries the same 5 s timeout, in that client's own way.
//   postgres  raw pg pool with the adapter's options: BEGIN READ ONLY, the same prepared SELECT,
//             ROLLBACK, inline comparisons
//   mysql     raw mysql2 pool: the adapter's statements — the same execute inside a read-only
//             transaction, then `SHOW WARNINGS; ROLLBACK; START TRANSACTION READ ONLY` in one round
//             trip (adr/0011, adr/0012), comparisons (peer: the same without SHOW WARNINGS)
//   http      raw fetch of the same url with an AbortSignal on a 5 s timer, JSON body, comparisons
//             (peer: the same fetch with no signal, i.e. no timeout at all)
//   mcp       raw SDK Client.callTool of the same tool over stdio with the same signal and timeout,
//             comparisons
// Raw and gate calls alternate in pairs, in windows; the reported ratio is the median of the windows'
// ratios (each window's times are its medians), so one quiet or noisy window does not decide it. Needs `npm run build`
// and the local Postgres and MariaDB (TESSERA_PG_URL / TESSERA_MYSQL_URL); a missing database
// leaves its figure out and says so on stderr.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import http from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import mysql from "mysql2/promise";
import pg from "pg";
import { createGate, loadPolicy } from "../dist/index.js";
import { figure, median, printResult } from "./lib.mjs";

const PG_URL = process.env.TESSERA_PG_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const MYSQL_URL = process.env.TESSERA_MYSQL_URL ?? "mysql://root@127.0.0.1:3306/test";
const FIXTURE = fileURLToPath(new URL("../test/fixtures/mcp-orders-server.mjs", import.meta.url));
const T = "tessera_bench_src_orders";
const TIMEOUT_MS = 5000; // every source's default timeout_ms
const N = 1000;
const ORDERS = Array.from({ length: N }, (_, i) => ({
  order_id: 1001 + i,
  customer_id: `c-${i % 50}`,
  status: i % 3 ? "delivered" : "shipped",
  amount_cents: 100 + i,
}));
const byId = new Map(ORDERS.map((o) => [o.order_id, o]));
const CALLS = Array.from({ length: 512 }, (_, i) => {
  const o = ORDERS[(i * 37) % N];
  return { order_id: o.order_id, customer_id: i % 2 ? o.customer_id : "c-x" };
});
const inline = (row, customer) =>
  row !== undefined && row.customer_id === customer && row.status === "delivered" ? "allow" : "block";

/**
 * Median ns per call of `raw` and `gated`, measured in pairs (one call each, order alternating),
 * so a burst of load on the machine hits both alike; both must decide alike. The pairs run in
 * windows; the window whose gate/raw ratio is the median of all windows' ratios is reported.
 */
async function sideBySide(raw, gated, { warmup = 1000, windows = 7, pairs = 200 } = {}) {
  for (let i = 0; i < warmup; i++) {
    const c = CALLS[i % CALLS.length];
    const a = await raw(c);
    const b = await gated(c);
    if (a !== b) throw new Error(`raw and gate disagree on ${JSON.stringify(c)}: ${a} vs ${b}`);
  }
  const time = async (fn, c, out) => {
    const t0 = process.hrtime.bigint();
    await fn(c);
    out.push(Number(process.hrtime.bigint() - t0));
  };
  const results = [];
  for (let w = 0; w < windows; w++) {
    const rawNs = [];
    const gateNs = [];
    for (let i = 0; i < pairs; i++) {
      const c = CALLS[(w * pairs + i) % CALLS.length];
      if (i % 2) {
        await time(raw, c, rawNs);
        await time(gated, c, gateNs);
      } else {
        await time(gated, c, gateNs);
        await time(raw, c, rawNs);
      }
    }
    results.push({ raw: median(rawNs), gate: median(gateNs) });
  }
  results.sort((a, b) => a.gate / a.raw - b.gate / b.raw);
  return results[results.length >> 1];
}

const dir = mkdtempSync(join(tmpdir(), "tessera-bench-sources-"));
const figures = [];
const MATCH =
  "match:\n                - { column: customer_id, ctx: customer_id }\n                - { column: status, value: delivered }";
const tool = (name, source, request) => `  ${name}:
    arguments:
      order_id:
        ground:
          checks:
            - source: ${source}
              ${request}
              ${MATCH}
`;
/** gate.check against its raw client; a peer measured against the same raw client in its own pairs is scaled to this run's limit. */
const gateFigure = (adapter, m, limitName, peer) =>
  figure({
    figure: `${adapter}: gate.check per decision`,
    value: m.gate,
    unit: "ns",
    limitName,
    limitValue: m.raw,
    target: { ratio: 1.2 },
    peers: peer === undefined ? [] : [{ name: peer.name, value: (peer.m.gate / peer.m.raw) * m.raw }],
  });
const decide = (gate, name) => async (c) =>
  (await gate.check({ tool: name, arguments: { order_id: c.order_id } }, { customer_id: c.customer_id })).decision;

// the HTTP orders API on 127.0.0.1 and the SDK-built MCP fixture serve the same dataset
const api = http.createServer((req, res) => {
  const o = byId.get(Number(req.url.split("/")[2]));
  const text = JSON.stringify(o ?? { error: "not found" });
  res.writeHead(o ? 200 : 404, { "content-type": "application/json", "content-length": Buffer.byteLength(text) });
  res.end(text);
});
await new Promise((r) => api.listen(0, "127.0.0.1", r));
const base = `http://127.0.0.1:${api.address().port}`;
writeFileSync(join(dir, "orders.json"), JSON.stringify(ORDERS));

let pgReady = false;
try {
  const c = new pg.Client({ connectionString: PG_URL });
  await c.connect();
  await c.query(`DROP TABLE IF EXISTS ${T}`);
  await c.query(`CREATE TABLE ${T} (order_id int PRIMARY KEY, customer_id text, status text, amount_cents int)`);
  await c.query(`INSERT INTO ${T} SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::int[])`, [
    ORDERS.map((o) => o.order_id),
    ORDERS.map((o) => o.customer_id),
    ORDERS.map((o) => o.status),
    ORDERS.map((o) => o.amount_cents),
  ]);
  await c.end();
  pgReady = true;
} catch (err) {
  process.stderr.write(`sources bench: postgres unavailable (${err.code ?? err.message}); no postgres figure\n`);
}
let myReady = false;
try {
  const c = await mysql.createConnection({ uri: MYSQL_URL });
  await c.query(`DROP TABLE IF EXISTS ${T}`);
  await c.query(
    `CREATE TABLE ${T} (order_id INT PRIMARY KEY, customer_id VARCHAR(20), status VARCHAR(20), amount_cents INT)`,
  );
  await c.query(`INSERT INTO ${T} VALUES ?`, [
    ORDERS.map((o) => [o.order_id, o.customer_id, o.status, o.amount_cents]),
  ]);
  await c.end();
  myReady = true;
} catch (err) {
  process.stderr.write(`sources bench: mysql unavailable (${err.code ?? err.message}); no mysql figure\n`);
}

const SQL = `SELECT customer_id, status FROM ${T} WHERE order_id = %(value)s`;
writeFileSync(
  join(dir, "policy.yaml"),
  `version: 1
sources:
  pg: { kind: postgres, url: "${PG_URL}" }
  my: { kind: mysql, url: "${MYSQL_URL}" }
  api: { kind: http, base_url: "${base}" }
  mcp: { kind: mcp, command: "${process.execPath}", args: ["${FIXTURE}"], env: { ORDERS_FILE: "${join(dir, "orders.json")}" } }
tools:
${tool("via_pg", "pg", `query: "${SQL}"`)}${tool("via_my", "my", `query: "${SQL}"`)}${tool("via_http", "api", "path: /orders/{value}")}${tool("via_mcp", "mcp", 'tool: find_order\n              arguments: { order_id: "{value}" }')}`,
);
const gate = createGate(await loadPolicy(join(dir, "policy.yaml")));

if (pgReady) {
  // the adapter's pool options (src/sources/postgres.ts), minus its type parsers
  const pool = new pg.Pool({
    connectionString: PG_URL,
    max: 4,
    connectionTimeoutMillis: TIMEOUT_MS,
    statement_timeout: TIMEOUT_MS,
    idle_in_transaction_session_timeout: TIMEOUT_MS * 2,
    application_name: "bench",
    options: "-c default_transaction_read_only=on",
    allowExitOnIdle: true,
  });
  const text = `SELECT customer_id, status FROM ${T} WHERE order_id = $1`;
  const raw = async (c) => {
    const client = await pool.connect();
    await client.query("BEGIN READ ONLY");
    const r = await client.query({ name: "bench_raw", text, values: [c.order_id] });
    await client.query("ROLLBACK");
    client.release();
    return inline(r.rows[0], c.customer_id);
  };
  const m = await sideBySide(raw, decide(gate, "via_pg"));
  figures.push(gateFigure("postgres", m, "raw pg (the adapter's pool options, read-only transaction and query)"));
  await pool.end();
}
if (myReady) {
  // the adapter's statements: a pooled connection always waits inside a fresh read-only
  // transaction; each request is the execute, then one round trip of `SHOW WARNINGS; ROLLBACK;
  // START TRANSACTION READ ONLY` (the warnings are the implicit-conversion guard, adr/0011)
  // the adapter's pool options (src/sources/mysql.ts); its statement timeout is set once per connection
  const pool = mysql.createPool({
    uri: MYSQL_URL,
    connectionLimit: 4,
    connectTimeout: TIMEOUT_MS,
    multipleStatements: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
    dateStrings: true,
    maxIdle: 4,
    idleTimeout: 60_000,
  });
  const text = `SELECT customer_id, status FROM ${T} WHERE order_id = ?`;
  const opened = new WeakSet();
  const rawWith = (next) => async (c) => {
    const conn = await pool.getConnection();
    if (!opened.has(conn.connection)) {
      const timeout = conn.connection._isMariaDB
        ? `max_statement_time = ${TIMEOUT_MS / 1000}`
        : `max_execution_time = ${TIMEOUT_MS}`;
      await conn.query(`SET SESSION TRANSACTION READ ONLY; SET SESSION ${timeout}; START TRANSACTION READ ONLY`);
      opened.add(conn.connection);
    }
    const [rows] = await conn.execute(text, [c.order_id]);
    await conn.query(next);
    conn.release();
    return inline(rows[0], c.customer_id);
  };
  const raw = rawWith("SHOW WARNINGS; ROLLBACK; START TRANSACTION READ ONLY");
  const m = await sideBySide(raw, decide(gate, "via_my"));
  const unguarded = await sideBySide(raw, rawWith("ROLLBACK; START TRANSACTION READ ONLY"));
  figures.push(
    gateFigure("mysql", m, "raw mysql2 (the adapter's statements: execute, then SHOW WARNINGS with the rollback)", {
      name: "raw mysql2 without the conversion guard (no SHOW WARNINGS)",
      m: unguarded,
    }),
  );
  await pool.end();
}
{
  const fetchOrder = async (c, signal) => {
    const res = await fetch(`${base}/orders/${c.order_id}`, {
      headers: { accept: "application/json" },
      redirect: "manual",
      signal,
    });
    const body = await res.json();
    return inline(res.status === 200 ? body : undefined, c.customer_id);
  };
  const raw = async (c) => {
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), TIMEOUT_MS);
    try {
      return await fetchOrder(c, ac.signal);
    } finally {
      clearTimeout(timer);
    }
  };
  const m = await sideBySide(raw, decide(gate, "via_http"));
  const bare = await sideBySide(raw, (c) => fetchOrder(c, undefined));
  figures.push(
    gateFigure("http", m, "raw fetch with a 5 s AbortSignal (same url, JSON body)", {
      name: "raw fetch with no signal (no timeout)",
      m: bare,
    }),
  );
}
{
  const client = new Client({ name: "bench", version: "1" }, { capabilities: {} });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [FIXTURE],
      env: { ...process.env, ORDERS_FILE: join(dir, "orders.json") },
      stderr: "ignore",
    }),
  );
  const raw = async (c) => {
    const ac = new AbortController();
    const r = await client.callTool({ name: "find_order", arguments: { order_id: c.order_id } }, undefined, {
      signal: ac.signal,
      timeout: TIMEOUT_MS,
    });
    return inline(r.structuredContent, c.customer_id);
  };
  const m = await sideBySide(raw, decide(gate, "via_mcp"));
  figures.push(gateFigure("mcp (stdio)", m, "raw SDK client callTool (same signal and timeout)"));
  await client.close();
}

await gate.close();
await new Promise((r) => api.close(r));
rmSync(dir, { recursive: true, force: true });
const result = { name: "sources", figures };
printResult(result);
console.log(`RESULT ${JSON.stringify(result)}`);
