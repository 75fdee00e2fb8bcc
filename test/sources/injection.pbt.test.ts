// Injection properties per adapter: adversarial values are data. They never change the SQL that
// runs, never write (a forced write fails in the read-only transaction), never change the HTTP
// request's host, path segments or query keys, and reach an MCP tool exactly as bound.
import fc from "fast-check";
import mysql from "mysql2/promise";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { placeholdersOf } from "../../src/checks/requests.js";
import type { Source } from "../../src/checks/source.js";
import { createHttpSource } from "../../src/sources/http.js";
import { createMcpSource } from "../../src/sources/mcp.js";
import { createMysqlSource } from "../../src/sources/mysql.js";
import { createPostgresSource } from "../../src/sources/postgres.js";
import { type Order, startOrdersServer, type TestServer } from "./http-server.js";
import { codeOf, MYSQL_URL, mysqlReachable, never, PG_URL, pgReachable } from "./live.js";
import { FIXTURE_DIR } from "./mcp-fixture.js";

const TOKENS = [
  "'",
  '"',
  "`",
  "\\",
  ";",
  "--",
  "#",
  "/*",
  "*/",
  "$$",
  "$1",
  "?",
  "%(value)s",
  "%s",
  "{value}",
  " OR 1=1",
  "DROP TABLE t",
  "\n",
  "\r\n",
  "\t",
  " ",
  "../",
  "./",
  "..",
  ".",
  "/",
  "?",
  "#",
  "&",
  "=",
  "+",
  "%",
  "%2F",
  "%2e%2e",
  "@",
  "evil.example:80",
  "http://x/",
  "é",
  "ß",
  "\u2028",
  "😀",
  "a",
  "1",
  "0x1",
];
/** Strings assembled from SQL, URL and JSON metacharacters, plus arbitrary unicode (no NUL, which Postgres text refuses). */
const adversarial = fc.oneof(
  fc.array(fc.constantFrom(...TOKENS), { minLength: 1, maxLength: 8 }).map((xs) => xs.join("")),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 12 }).filter((s) => !s.includes("\u0000")),
);
const RUNS = { numRuns: 120, seed: 20261130 };

const pgLive = await pgReachable();
const myLive = await mysqlReachable();

describe.skipIf(!pgLive)("postgres: values never change structure, never write", () => {
  const T = "tessera_src_pbt_pg";
  const admin = new pg.Client({ connectionString: PG_URL });
  let src: Source;
  const checksum = async () =>
    (
      await admin.query(
        `SELECT count(*)::int AS n, string_agg(customer_id || status, ',' ORDER BY order_id) AS s FROM ${T}`,
      )
    ).rows[0];
  beforeAll(async () => {
    await admin.connect();
    await admin.query(`DROP TABLE IF EXISTS ${T}`);
    await admin.query(`CREATE TABLE ${T} (order_id int PRIMARY KEY, customer_id text, status text)`);
    await admin.query(`INSERT INTO ${T} VALUES (1, 'c-1', 'delivered'), (2, 'c-2', 'shipped')`);
    src = await createPostgresSource({ name: "pg", config: { url: PG_URL, timeout_ms: 2000 }, baseDir: "/" });
  });
  afterAll(async () => {
    await src?.close();
    await admin.query(`DROP TABLE IF EXISTS ${T}`);
    await admin.end();
  });

  it("a bound value comes back byte for byte and matches no row it does not equal", async () => {
    const echo = src.prepare({
      query: `SELECT %(value)s::text AS v, (SELECT count(*)::int FROM ${T} WHERE customer_id = %(value)s) AS n`,
    });
    const before = await checksum();
    await fc.assert(
      fc.asyncProperty(adversarial, async (v) => {
        const { rows } = await echo.run({ value: v }, never);
        expect(rows).toEqual([{ v, n: v === "c-1" || v === "c-2" ? 1 : 0 }]);
      }),
      RUNS,
    );
    expect(await checksum()).toEqual(before);
  });

  it("a write statement is refused by lint and, forced past it, fails in the read-only transaction, whatever the value", async () => {
    const writes = [
      `DELETE FROM ${T} WHERE customer_id <> %(value)s`,
      `UPDATE ${T} SET status = %(value)s`,
      `INSERT INTO ${T} VALUES (99, %(value)s, 'x')`,
      `WITH d AS (DELETE FROM ${T} WHERE status <> %(value)s RETURNING 1) SELECT count(*) FROM d`,
      `CREATE TABLE tessera_src_pbt_pg_x AS SELECT %(value)s::text AS v`,
    ];
    // lint refuses every one of them when the policy loads
    for (const query of writes)
      expect(
        placeholdersOf("postgres", { query }).problems.map((p) => p.code),
        query,
      ).toContain("sql_not_read_only");
    const before = await checksum();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writes), adversarial, async (query, v) => {
        expect(await codeOf(src.prepare({ query }).run({ value: v }, never))).toBe("source_invalid_query");
      }),
      { ...RUNS, numRuns: 40 },
    );
    expect(await checksum()).toEqual(before);
  });
});

describe.skipIf(!myLive)("mysql: values never change structure, never write", () => {
  const T = "tessera_src_pbt_my";
  let admin: mysql.Connection;
  let src: Source;
  const checksum = async () =>
    (
      await admin.query<mysql.RowDataPacket[]>(
        `SELECT COUNT(*) AS n, GROUP_CONCAT(customer_id, status ORDER BY order_id) AS s FROM ${T}`,
      )
    )[0][0];
  beforeAll(async () => {
    admin = await mysql.createConnection({ uri: MYSQL_URL });
    await admin.query(`DROP TABLE IF EXISTS ${T}`);
    await admin.query(
      `CREATE TABLE ${T} (order_id INT PRIMARY KEY, customer_id VARCHAR(40) COLLATE utf8mb4_bin, status VARCHAR(40)) CHARACTER SET utf8mb4`,
    );
    await admin.query(`INSERT INTO ${T} VALUES (1, 'c-1', 'delivered'), (2, 'c-2', 'shipped')`);
    src = await createMysqlSource({ name: "my", config: { url: MYSQL_URL, timeout_ms: 2000 }, baseDir: "/" });
  });
  afterAll(async () => {
    await src?.close();
    await admin?.query(`DROP TABLE IF EXISTS ${T}`);
    await admin?.end();
  });

  it("a bound value comes back byte for byte and matches no row it does not equal", async () => {
    const echo = src.prepare({
      query: `SELECT CAST(%(value)s AS CHAR CHARACTER SET utf8mb4) AS v, (SELECT COUNT(*) FROM ${T} WHERE customer_id = %(value)s) AS n`,
    });
    const before = await checksum();
    await fc.assert(
      fc.asyncProperty(adversarial, async (v) => {
        const { rows } = await echo.run({ value: v }, never);
        expect(rows).toEqual([{ v, n: v === "c-1" || v === "c-2" ? 1 : 0 }]);
      }),
      RUNS,
    );
    expect(await checksum()).toEqual(before);
  });

  it("a write statement is refused by lint and, forced past it, fails in the read-only transaction, whatever the value", async () => {
    const writes = [
      `DELETE FROM ${T} WHERE customer_id <> %(value)s`,
      `UPDATE ${T} SET status = %(value)s`,
      `INSERT INTO ${T} VALUES (99, %(value)s, 'x')`,
      `REPLACE INTO ${T} VALUES (1, %(value)s, 'x')`,
    ];
    // lint refuses every one of them when the policy loads
    for (const query of writes)
      expect(
        placeholdersOf("mysql", { query }).problems.map((p) => p.code),
        query,
      ).toContain("sql_not_read_only");
    const before = await checksum();
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...writes), adversarial, async (query, v) => {
        expect(await codeOf(src.prepare({ query }).run({ value: v }, never))).toBe("source_invalid_query");
      }),
      { ...RUNS, numRuns: 40 },
    );
    expect(await checksum()).toEqual(before);
  });
});

describe("http: values never change host, path segments or query keys", () => {
  let server: TestServer;
  let src: Source;
  const ORDERS: Order[] = [{ order_id: 1, customer_id: "c-1", status: "delivered", amount_cents: 1 }];
  beforeAll(async () => {
    server = await startOrdersServer(ORDERS);
    src = await createHttpSource({
      name: "api",
      config: { base_url: `${server.base}/echo`, headers: { authorization: "Bearer t" } },
      baseDir: "/",
    });
  });
  afterAll(async () => {
    await src.close();
    await server.close();
  });

  it("each value lands, percent-encoded, in its own segment or query value", async () => {
    const q = src.prepare({ path: "/seg/{a}/mid/x{b}?k={a}&m=1&n={b}" });
    await fc.assert(
      fc.asyncProperty(adversarial, adversarial, async (a, b) => {
        const got = await q.run({ a, b }, never).then(
          (r) => r.rows[0] as Record<string, unknown>,
          (e: { code?: string }) => e.code,
        );
        if (a === "." || a === "..") {
          expect(got).toBe("source_invalid_query"); // URL parsing would drop or climb the segment
          return;
        }
        expect(typeof got).toBe("object");
        const row = got as Record<string, unknown>;
        expect(row.host).toBe(`127.0.0.1:${server.port}`);
        expect(row.method).toBe("GET");
        expect(row.keys).toBe("k&m&n");
        const target = new URL(String(row.target), "http://h");
        const segments = target.pathname.split("/");
        expect(segments.length).toBe(6);
        expect(segments.slice(0, 3)).toEqual(["", "echo", "seg"]);
        expect(decodeURIComponent(segments[3]!)).toBe(a);
        expect(segments[4]).toBe("mid");
        expect(decodeURIComponent(segments[5]!)).toBe(`x${b}`);
        expect(target.searchParams.get("k")).toBe(a);
        expect(target.searchParams.get("n")).toBe(b);
        expect(target.hash).toBe("");
      }),
      RUNS,
    );
  });
});

describe("mcp: values reach the tool exactly as bound, never as structure", () => {
  let src: Source;
  beforeAll(async () => {
    src = await createMcpSource({
      name: "m",
      config: { command: process.execPath, args: ["mcp-orders-server.mjs"], timeout_ms: 3000 },
      baseDir: FIXTURE_DIR,
    });
  });
  afterAll(async () => {
    await src.close();
  });

  it("a whole placeholder is the value; an inner one is its text inside the literal", async () => {
    const q = src.prepare({ tool: "echo", arguments: { id: "{value}", note: "<{value}>", list: ["{n}"] } });
    await fc.assert(
      fc.asyncProperty(
        adversarial,
        fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), adversarial),
        async (v, n) => {
          const { rows } = await q.run({ value: v, n }, never);
          expect(JSON.parse(String(rows[0]?.json))).toEqual({ id: v, note: `<${v}>`, list: [n] });
        },
      ),
      { ...RUNS, numRuns: 60 },
    );
  });
});
