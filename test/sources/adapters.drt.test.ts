// Differential test across adapters: one orders dataset loaded into SQLite, Postgres and MySQL and
// served by the HTTP and MCP fixtures; 1,000 random refund calls get the same decision from every
// adapter, and that decision equals a deliberately naive reference written in plain TypeScript.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, expect, it } from "vitest";
import { parsePolicy } from "../../src/checks/load.js";
import type { Gate } from "../../src/checks/engine.js";
import { createGate } from "../../src/gate.js";
import { type Order, startOrdersServer, type TestServer } from "./http-server.js";
import { MYSQL_URL, mysqlReachable, PG_URL, pgReachable, REQUIRE_LIVE } from "./live.js";
import { FIXTURE_DIR } from "./mcp-fixture.js";

const T = "tessera_src_drt_orders";
const STATUSES = ["delivered", "shipped", "refunded", "cancelled"] as const;
const CUSTOMERS = ["c-1", "c-2", "c-3", "c-4", "c-5", "c-6"];

// a fixed dataset from a seeded generator, so a failure reproduces
const ORDERS: Order[] = fc
  .sample(
    fc.record({
      customer_id: fc.constantFrom(...CUSTOMERS),
      status: fc.oneof(
        { weight: 3, arbitrary: fc.constant(STATUSES[0]) },
        { weight: 1, arbitrary: fc.constantFrom(...STATUSES.slice(1)) },
      ),
      amount_cents: fc.integer({ min: 0, max: 5000 }),
    }),
    { numRuns: 150, seed: 7 },
  )
  .map((o, i) => ({ order_id: 1001 + i, ...o }));
const byId = new Map(ORDERS.map((o) => [o.order_id, o]));

type Call = { order_id: number | string; amount_cents: number; customer: string };
const calls: Call[] = fc
  .sample(
    fc.record({
      order_id: fc.oneof(
        { weight: 16, arbitrary: fc.integer({ min: 1001, max: 1150 }) },
        { weight: 2, arbitrary: fc.integer({ min: 1151, max: 1200 }) },
        { weight: 1, arbitrary: fc.integer({ min: 1001, max: 1150 }).map(String) },
        { weight: 1, arbitrary: fc.constantFrom("1001abc", "1002,1003", "", "0", "-1", "1001.5", "x") },
      ),
      amount_cents: fc.integer({ min: 0, max: 5200 }),
      customer: fc.constantFrom(...CUSTOMERS),
      owner: fc.boolean(),
    }),
    { numRuns: 1000, seed: 11 },
  )
  .map(({ owner, ...c }) => {
    // half the calls come from the order's owner, so allows are common enough to compare
    const o = typeof c.order_id === "number" ? byId.get(c.order_id) : undefined;
    return owner && o !== undefined ? { ...c, customer: o.customer_id } : c;
  });

/** The naive reference: refund only an existing, delivered order of this customer, within its amount. */
function reference(c: Call): "allow" | "block" {
  const id = typeof c.order_id === "number" ? c.order_id : /^[1-9][0-9]*$/.test(c.order_id) ? Number(c.order_id) : NaN;
  const o = byId.get(id);
  return o !== undefined && o.customer_id === c.customer && o.status === "delivered" && c.amount_cents <= o.amount_cents
    ? "allow"
    : "block";
}

const BACKENDS = ["sqlite", "postgres", "mysql", "http", "mcp"] as const;
const OWNED = [
  { column: "customer_id", ctx: "customer_id" },
  { column: "status", value: "delivered" },
  { column: "amount_cents", op: "gte", arg: "amount_cents" },
];

function sqlTool(source: string, ph: (n: string) => string): unknown {
  return {
    arguments: {
      order_id: {
        ground: {
          checks: [
            {
              source,
              query: `SELECT customer_id, status, amount_cents FROM ${T} WHERE order_id = ${ph("value")}`,
              match: [
                { column: "customer_id", ctx: "customer_id" },
                { column: "status", value: "delivered" },
                { column: "amount_cents", op: "gte", arg: "amount_cents" },
              ],
            },
            {
              source,
              query: `SELECT order_id FROM ${T} WHERE order_id = ${ph("value")} AND status = 'refunded'`,
              match: [{ rows: "eq", value: 0 }],
            },
          ],
        },
      },
      amount_cents: {},
    },
  };
}

const pgLive = await pgReachable();
const myLive = await mysqlReachable();
const live = pgLive && myLive;

it("the live databases are reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect({ pgLive, myLive }).toEqual({ pgLive: true, myLive: true });
});

let dir: string;
let server: TestServer;
let gate: Gate;

beforeAll(async () => {
  if (!live) return;
  dir = mkdtempSync(join(tmpdir(), "tessera-drt-"));
  const rows = ORDERS.map((o) => [o.order_id, o.customer_id, o.status, o.amount_cents] as const);
  const lite = new Database(join(dir, "orders.db"));
  lite.exec(
    `CREATE TABLE ${T} (order_id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL, amount_cents INTEGER NOT NULL)`,
  );
  const ins = lite.prepare(`INSERT INTO ${T} VALUES (?, ?, ?, ?)`);
  for (const r of rows) ins.run(...r);
  lite.close();
  const pgc = new pg.Client({ connectionString: PG_URL });
  await pgc.connect();
  await pgc.query(`DROP TABLE IF EXISTS ${T}`);
  await pgc.query(
    `CREATE TABLE ${T} (order_id int PRIMARY KEY, customer_id text NOT NULL, status text NOT NULL, amount_cents int NOT NULL)`,
  );
  await pgc.query(
    `INSERT INTO ${T} SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::int[])`,
    [0, 1, 2, 3].map((k) => rows.map((r) => r[k])),
  );
  await pgc.end();
  const myc = await mysql.createConnection({ uri: MYSQL_URL });
  await myc.query(`DROP TABLE IF EXISTS ${T}`);
  await myc.query(
    `CREATE TABLE ${T} (order_id INT PRIMARY KEY, customer_id VARCHAR(20) NOT NULL, status VARCHAR(20) NOT NULL, amount_cents INT NOT NULL)`,
  );
  await myc.query(`INSERT INTO ${T} VALUES ?`, [rows.map((r) => [...r])]);
  await myc.end();
  writeFileSync(join(dir, "orders.json"), JSON.stringify(ORDERS));
  server = await startOrdersServer(ORDERS);

  const mcpArgs = (name: string) => ({ order_id: `{${name}}` });
  const policy = {
    version: 1,
    sources: {
      sqlite: { kind: "sqlite", path: "./orders.db" },
      postgres: { kind: "postgres", url: PG_URL, pool_size: 8 },
      mysql: { kind: "mysql", url: MYSQL_URL, pool_size: 8 },
      http: { kind: "http", base_url: server.base },
      http_refunds: { kind: "http", base_url: server.base, rows: "items" },
      mcp: {
        kind: "mcp",
        command: process.execPath,
        args: [join(FIXTURE_DIR, "mcp-orders-server.mjs")],
        env: { ORDERS_FILE: join(dir, "orders.json") },
      },
    },
    tools: {
      refund_sqlite: sqlTool("sqlite", (n) => `:${n}`),
      refund_postgres: sqlTool("postgres", (n) => `%(${n})s`),
      refund_mysql: sqlTool("mysql", (n) => `%(${n})s`),
      refund_http: {
        arguments: {
          order_id: {
            ground: {
              checks: [
                { source: "http", path: "/orders/{value}", match: OWNED },
                { source: "http_refunds", path: "/refunds?order_id={value}", match: [{ rows: "eq", value: 0 }] },
              ],
            },
          },
          amount_cents: {},
        },
      },
      refund_mcp: {
        arguments: {
          order_id: {
            ground: {
              checks: [
                { source: "mcp", tool: "get_order", arguments: mcpArgs("value"), match: OWNED },
                { source: "mcp", tool: "list_refunds", arguments: mcpArgs("value"), match: [{ rows: "eq", value: 0 }] },
              ],
            },
          },
          amount_cents: {},
        },
      },
    },
  };
  gate = createGate(parsePolicy(JSON.stringify(policy), join(dir, "policy.yaml")));
});

afterAll(async () => {
  await gate?.close();
  await server?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it.skipIf(!live)("1,000 random calls: every adapter gives the reference decision", async () => {
  const disagreements: string[] = [];
  const seen = { allow: 0, block: 0 };
  let i = 0;
  const worker = async (): Promise<void> => {
    while (i < calls.length) {
      const c = calls[i++]!;
      const want = reference(c);
      seen[want]++;
      const got = await Promise.all(
        BACKENDS.map((b) =>
          gate.check(
            { tool: `refund_${b}`, arguments: { order_id: c.order_id, amount_cents: c.amount_cents } },
            { customer_id: c.customer },
          ),
        ),
      );
      const decisions = got.map((d) => d.decision);
      if (decisions.some((d) => d !== want))
        disagreements.push(
          `${JSON.stringify(c)}: want ${want}, got ${BACKENDS.map((b, k) => `${b}=${decisions[k]}`).join(" ")}`,
        );
      // for well-formed ids every check also ends the same way on every adapter
      if (typeof c.order_id === "number") {
        const shapes = got.map((d) =>
          JSON.stringify(
            d.checks.map((k) => [
              k.argument,
              k.check,
              k.status,
              k.outcome,
              k.rows,
              k.conditions.map((x) => x.code ?? "ok"),
            ]),
          ),
        );
        if (new Set(shapes).size !== 1)
          disagreements.push(`${JSON.stringify(c)}: check reports differ: ${shapes.join(" | ")}`);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  expect(disagreements.slice(0, 5)).toEqual([]);
  // the dataset exercises both outcomes
  expect(seen.allow).toBeGreaterThan(150);
  expect(seen.block).toBeGreaterThan(300);
});
