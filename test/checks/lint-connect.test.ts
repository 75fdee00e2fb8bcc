// `tessera policy lint --connect` as a user runs it (the built CLI), against a real SQLite file,
// the live Postgres and MariaDB servers and a real MCP server: each query is prepared on its
// Source without running it, so a missing table or column, another adapter's placeholder and a
// `match.column` the query does not return are errors with file:line, while plain lint passes them.
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MYSQL_URL, mysqlReachable, PG_URL, pgReachable, REQUIRE_LIVE } from "../sources/live.js";

const root = new URL("../../", import.meta.url).pathname;
const main = join(root, "dist/cli/main.js");
const mcpServer = join(root, "test/fixtures/mcp-orders-server.mjs");
const dir = mkdtempSync(join(tmpdir(), "tessera-lint-connect-"));
const T = "tessera_lint_connect_orders";

function lint(file: string, ...extra: string[]) {
  const r = spawnSync(process.execPath, [main, "policy", "lint", file, ...extra], {
    cwd: dir,
    encoding: "utf8",
    env: { PATH: process.env.PATH, NO_COLOR: "1", TESSERA_POLICY_CACHE: "off" },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A policy whose one tool has one check per entry, each on its own lines; returns the file. */
function policy(name: string, sources: string, checks: readonly { source: string; request: string; column: string }[]) {
  const body = checks
    .map(
      (c) =>
        `          - source: ${c.source}\n            ${c.request}\n            match:\n              - column: ${c.column}\n                value: 1`,
    )
    .join("\n");
  const text = `version: 1\ndefaults:\n  unlisted_tools: block\nsources:\n${sources}\ntools:\n  refund_order:\n    arguments:\n      order_id:\n        ground:\n          checks:\n${body}\n`;
  const file = join(dir, name);
  writeFileSync(file, text);
  return { file, text };
}

/** The 1-based line of the first line of `text` containing `needle` after line `after`. */
function lineOf(text: string, needle: string, after = 0): number {
  const lines = text.split("\n");
  for (let i = after; i < lines.length; i++) if (lines[i]!.includes(needle)) return i + 1;
  throw new Error(`no ${needle}`);
}

beforeAll(() => {
  const db = new Database(join(dir, "orders.db"));
  db.exec("CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id TEXT, status TEXT)");
  db.close();
});

describe("sqlite", () => {
  const sources = "  db:\n    kind: sqlite\n    path: orders.db";

  it("passes a policy whose queries prepare and return every matched column", () => {
    const { file } = policy("sqlite-ok.yaml", sources, [
      { source: "db", request: "query: SELECT status FROM orders WHERE order_id = :value", column: "status" },
    ]);
    const r = lint(file, "--connect");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(r.stdout).toContain("source `db` (sqlite, 1 request): checked: prepared on the read-only database");
    expect(r.stdout).toMatch(/^0 errors, 0 warnings {2}sha256:/m);
  });

  it("reports a missing table, a missing column and an unreturned match column at their lines", () => {
    const { file, text } = policy("sqlite-bad.yaml", sources, [
      { source: "db", request: "query: SELECT status FROM order_rows WHERE order_id = :value", column: "status" },
      { source: "db", request: "query: SELECT state FROM orders WHERE order_id = :value", column: "state" },
      { source: "db", request: "query: SELECT status FROM orders WHERE order_id = :value", column: "customer_id" },
    ]);
    const plain = lint(file);
    expect(plain.code).toBe(0); // only warnings without --connect
    const r = lint(file, "--connect", "--json");
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as {
      errors: number;
      issues: { code: string; line: number; message: string }[];
    };
    const errors = report.issues.filter((i) => i.code.startsWith("connect_"));
    expect(errors.map((i) => [i.code, i.line])).toEqual([
      ["connect_query_invalid", lineOf(text, "order_rows")],
      ["connect_query_invalid", lineOf(text, "SELECT state")],
      ["connect_column_missing", lineOf(text, "column: customer_id")],
    ]);
    expect(errors[0]!.message).toContain("no such table: order_rows");
    expect(errors[1]!.message).toContain("no such column: state");
    expect(errors[2]!.message).toBe("the query does not return a column `customer_id` (it returns `status`)");
    const text2 = lint(file, "--connect");
    expect(text2.stdout).toContain(`sqlite-bad.yaml:${lineOf(text, "column: customer_id")}: error: `);
  });

  it("a database file that does not exist is a Source that cannot be opened: exit 4", () => {
    const { file } = policy("sqlite-missing.yaml", "  db:\n    kind: sqlite\n    path: nowhere.db", [
      { source: "db", request: "query: SELECT status FROM orders WHERE order_id = :value", column: "status" },
    ]);
    const r = lint(file, "--connect");
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/sqlite-missing\.yaml:5: error: sources\.db: cannot open `db`: .*no such database file/);
  });
});

const pgLive = await pgReachable();
const myLive = await mysqlReachable();

it("the live databases are reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) {
    expect(pgLive).toBe(true);
    expect(myLive).toBe(true);
  }
});

describe.skipIf(!pgLive)("postgres (live)", () => {
  let admin: pg.Client;
  const sources = `  pg:\n    kind: postgres\n    url: ${PG_URL}`;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP TABLE IF EXISTS ${T}`);
    await admin.query(`CREATE TABLE ${T} (order_id INT PRIMARY KEY, customer_id TEXT, status TEXT)`);
    await admin.query(`INSERT INTO ${T} VALUES (1, 'c-1', 'delivered')`);
    // raises when it runs: a query calling it passes lint only if lint never executes it
    await admin.query(
      "CREATE OR REPLACE FUNCTION tessera_lint_boom(x int) RETURNS boolean STABLE LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'the query ran'; END $$",
    );
  });
  afterAll(async () => {
    await admin?.query(`DROP TABLE IF EXISTS ${T}`).catch(() => undefined);
    await admin?.end();
  });

  it("describes each query without running it: good passes, each kind of mistake fails at its line", async () => {
    const { file, text } = policy("pg.yaml", sources, [
      {
        source: "pg",
        request: `query: SELECT status FROM ${T} WHERE order_id = %(value)s AND tessera_lint_boom(%(value)s)`,
        column: "status",
      },
      { source: "pg", request: `query: SELECT status FROM ${T}_nope WHERE order_id = %(value)s`, column: "status" },
      { source: "pg", request: `query: SELECT state FROM ${T} WHERE order_id = %(value)s`, column: "state" },
      { source: "pg", request: `query: SELECT status FROM ${T} WHERE order_id = ?`, column: "status" },
      { source: "pg", request: `query: SELECT status FROM ${T} WHERE order_id = %(value)s`, column: "customer_id" },
    ]);
    expect(lint(file).code).toBe(0); // all five pass plain lint
    const r = lint(file, "--connect", "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as {
      issues: { code: string; line: number; message: string }[];
      sources: { source: string; status: string; detail: string }[];
    };
    const mine = report.issues.filter((i) => i.code.startsWith("connect_"));
    const queryLine = (n: number) => lineOf(text, "query:") + n * 5;
    expect(mine.map((i) => [i.code, i.line])).toEqual([
      ["connect_query_invalid", queryLine(1)],
      ["connect_query_invalid", queryLine(2)],
      ["connect_query_invalid", queryLine(3)],
      ["connect_column_missing", lineOf(text, "column: customer_id")],
    ]);
    expect(mine[0]!.message).toContain(`relation "${T}_nope" does not exist`);
    expect(mine[1]!.message).toContain('column "state" does not exist');
    expect(mine[2]!.message).toContain("postgres queries bind `%(name)s`, not MySQL's `?`");
    expect(report.sources).toEqual([
      {
        source: "pg",
        kind: "postgres",
        status: "checked",
        detail: "parsed and described on the server, never executed",
        requests: 5,
      },
    ]);
  });

  it("an unreachable server is exit 4 with the source's line", () => {
    const { file } = policy(
      "pg-down.yaml",
      "  pg:\n    kind: postgres\n    url: postgres://postgres@127.0.0.1:1/none\n    timeout_ms: 2000",
      [{ source: "pg", request: "query: SELECT 1 AS status WHERE 1 = %(value)s", column: "status" }],
    );
    const r = lint(file, "--connect");
    expect(r.code).toBe(4);
    expect(r.stdout).toMatch(/pg-down\.yaml:\d+: error: .*connect/);
  });
});

describe.skipIf(!myLive)("mariadb (live)", () => {
  let admin: mysql.Connection;
  const sources = `  my:\n    kind: mysql\n    url: ${MYSQL_URL}`;
  beforeAll(async () => {
    admin = await mysql.createConnection({ uri: MYSQL_URL });
    await admin.query(`DROP TABLE IF EXISTS ${T}`);
    await admin.query(`CREATE TABLE ${T} (order_id INT PRIMARY KEY, customer_id VARCHAR(20), status VARCHAR(20))`);
    await admin.query(`INSERT INTO ${T} VALUES (1, 'c-1', 'delivered')`);
    await admin.query("DROP FUNCTION IF EXISTS tessera_lint_boom");
    // signals when it runs: a query calling it passes lint only if lint never executes it
    await admin.query(
      "CREATE FUNCTION tessera_lint_boom(x INT) RETURNS INT DETERMINISTIC BEGIN SIGNAL SQLSTATE 'HY000' SET MESSAGE_TEXT = 'the query ran'; RETURN 1; END",
    );
  });
  afterAll(async () => {
    await admin?.query(`DROP TABLE IF EXISTS ${T}`).catch(() => undefined);
    await admin?.end();
  });

  it("prepares each query on the server: good passes, each kind of mistake fails at its line", () => {
    const { file, text } = policy("my.yaml", sources, [
      {
        source: "my",
        request: `query: SELECT status FROM ${T} WHERE order_id = %(value)s AND tessera_lint_boom(%(value)s) = 1`,
        column: "status",
      },
      { source: "my", request: `query: SELECT status FROM ${T}_nope WHERE order_id = %(value)s`, column: "status" },
      { source: "my", request: `query: SELECT state FROM ${T} WHERE order_id = %(value)s`, column: "state" },
      { source: "my", request: `query: SELECT status FROM ${T} WHERE order_id = $1`, column: "status" },
      { source: "my", request: `query: SELECT status FROM ${T} WHERE order_id = %(value)s`, column: "customer_id" },
    ]);
    expect(lint(file).code).toBe(0);
    const r = lint(file, "--connect", "--json");
    expect(r.stderr).toBe("");
    expect(r.code).toBe(2);
    const report = JSON.parse(r.stdout) as { issues: { code: string; line: number; message: string }[] };
    const mine = report.issues.filter((i) => i.code.startsWith("connect_"));
    const first = lineOf(text, "query:");
    expect(mine.map((i) => [i.code, i.line])).toEqual([
      ["connect_query_invalid", first + 5],
      ["connect_query_invalid", first + 10],
      ["connect_query_invalid", first + 15],
      ["connect_column_missing", lineOf(text, "column: customer_id")],
    ]);
    expect(mine[0]!.message).toContain(`${T}_nope' doesn't exist`);
    expect(mine[1]!.message).toContain("Unknown column 'state'");
    expect(mine[2]!.message).toContain("mysql queries bind `%(name)s`, not Postgres's `$1`");
  });
});

describe("http and mcp sources", () => {
  it("say what was checked: the mcp tool is listed by the server, http is not checked", () => {
    const sources = `  api:\n    kind: http\n    base_url: http://127.0.0.1:1\n  tools:\n    kind: mcp\n    command: ${process.execPath}\n    args: ["${mcpServer}"]`;
    const { file, text } = policy("remote.yaml", sources, [
      { source: "api", request: "path: /orders/{value}", column: "status" },
      { source: "tools", request: "tool: get_order\n            arguments: { order_id: '{value}' }", column: "status" },
      { source: "tools", request: "tool: no_such_tool", column: "status" },
    ]);
    const r = lint(file, "--connect", "--json");
    const report = JSON.parse(r.stdout) as {
      issues: { code: string; line: number; message: string; severity: string }[];
      sources: { source: string; status: string; detail: string }[];
    };
    expect(r.code).toBe(2);
    const mine = report.issues.filter((i) => i.code.startsWith("connect_"));
    expect(mine.map((i) => [i.severity, i.code, i.line])).toEqual([
      ["warning", "connect_not_checked", lineOf(text, "  api:")],
      ["error", "connect_query_invalid", lineOf(text, "tool: no_such_tool")],
    ]);
    expect(mine[1]!.message).toContain("the server lists no tool `no_such_tool`");
    expect(report.sources.map((s) => [s.source, s.status])).toEqual([
      ["api", "not_checked"],
      ["tools", "checked"],
    ]);
  });
});
