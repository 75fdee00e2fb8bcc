// A result that names a column twice, or holds a value that is not a scalar (a blob, a list, a
// json object), fails the request — `column_ambiguous`, `column_type_unsupported` — in every SQL
// adapter, against the real servers; a JSON answer (HTTP body, MCP text content) with a key twice
// in one object is `column_ambiguous` too, since JSON.parse would silently keep the last.
import { mkdtempSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Source } from "../../src/checks/source.js";
import { createHttpSource } from "../../src/sources/http.js";
import { createMcpSource } from "../../src/sources/mcp.js";
import { createMysqlSource } from "../../src/sources/mysql.js";
import { createPostgresSource } from "../../src/sources/postgres.js";
import { openSqlite } from "../../src/sources/sqlite.js";
import { codeOf, MYSQL_URL, mysqlReachable, never, PG_URL, pgReachable } from "./live.js";
import { FIXTURE_DIR } from "./mcp-fixture.js";

/** The code and message a request fails with, or its rows. */
async function outcome(src: Source, query: string, params: Record<string, unknown> = { value: 1 }): Promise<unknown> {
  try {
    return (await src.prepare({ query }).run(params as never, never)).rows;
  } catch (err) {
    return [(err as { code?: string }).code, (err as Error).message];
  }
}

describe("sqlite", () => {
  let src: Source;
  beforeAll(async () => {
    const file = join(mkdtempSync(join(tmpdir(), "tessera-columns-")), "t.db");
    const db = new Database(file);
    db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, status TEXT, token BLOB, note);
             INSERT INTO t VALUES (1, 'refunded', x'00ff', 'x'), (2, 'delivered', NULL, x'01');`);
    db.close();
    src = await openSqlite({ name: "billing", config: { kind: "sqlite", path: file }, baseDir: "/" });
  });
  afterAll(async () => {
    await src.close();
  });

  it("a column named twice is column_ambiguous, whichever value each would hold", async () => {
    expect(await outcome(src, "SELECT status, 'delivered' AS status FROM t WHERE id = :value")).toEqual([
      "column_ambiguous",
      "source `billing`: the result has two columns named `status`; give each its own name with `AS`",
    ]);
    expect(await outcome(src, "SELECT * FROM t a JOIN t b ON a.id = b.id WHERE a.id = :value")).toEqual([
      "column_ambiguous",
      "source `billing`: the result has two columns named `id`; give each its own name with `AS`",
    ]);
  });

  it("a BLOB is column_type_unsupported, not its base64 text; hex() compares it on purpose", async () => {
    expect(await outcome(src, "SELECT token FROM t WHERE id = :value")).toEqual([
      "column_type_unsupported",
      "source `billing`: column `token` holds binary data, which cannot be compared; convert it in the query if that is meant",
    ]);
    // the storage class decides, row by row: a BLOB in an untyped column too
    expect(await outcome(src, "SELECT note FROM t WHERE id = :value", { value: 1 })).toEqual([{ note: "x" }]);
    expect(((await outcome(src, "SELECT note FROM t WHERE id = :value", { value: 2 })) as string[])[0]).toBe(
      "column_type_unsupported",
    );
    expect(await outcome(src, "SELECT hex(token) AS token FROM t WHERE id = :value")).toEqual([{ token: "00FF" }]);
    expect(await outcome(src, "SELECT token FROM t WHERE id = :value", { value: 2 })).toEqual([{ token: null }]);
  });
});

const pgLive = await pgReachable();
describe.skipIf(!pgLive)("postgres (live)", () => {
  let src: Source;
  beforeAll(async () => {
    src = await createPostgresSource({ name: "billing", config: { url: PG_URL }, baseDir: "/" });
  });
  afterAll(async () => {
    await src.close();
  });

  it("a column named twice is column_ambiguous", async () => {
    expect(await outcome(src, "SELECT 'refunded' AS status, 'delivered' AS status WHERE %(value)s::int = 1")).toEqual([
      "column_ambiguous",
      "source `billing`: the result has two columns named `status`; give each its own name with `AS`",
    ]);
  });

  it("bytea, arrays and json objects are column_type_unsupported; scalars and casts to text compare", async () => {
    for (const [expr, kind] of [
      ["'\\x00ff'::bytea", "binary data"],
      ["ARRAY[1, 2]", "a list"],
      [`'{"a": 1}'::jsonb`, "a structured value"],
      ["point(1, 2)", "a structured value"],
    ] as const) {
      expect(await outcome(src, `SELECT ${expr} AS v WHERE %(value)s::int = 1`)).toEqual([
        "column_type_unsupported",
        `source \`billing\`: column \`v\` holds ${kind}, which cannot be compared; convert it in the query if that is meant`,
      ]);
    }
    expect(
      await outcome(
        src,
        `SELECT encode('\\x00ff'::bytea, 'hex') AS b, '"x"'::jsonb AS j, 1.50::numeric AS n WHERE %(value)s::int = 1`,
      ),
    ).toEqual([{ b: "00ff", j: "x", n: "1.50" }]);
  });
});

const myLive = await mysqlReachable();
describe.skipIf(!myLive)("mysql/mariadb (live)", () => {
  let src: Source;
  beforeAll(async () => {
    src = await createMysqlSource({ name: "billing", config: { url: MYSQL_URL }, baseDir: "/" });
  });
  afterAll(async () => {
    await src.close();
  });

  it("a column named twice is column_ambiguous", async () => {
    expect(
      await outcome(src, "SELECT 'refunded' AS status, 'delivered' AS status FROM DUAL WHERE %(value)s = 1"),
    ).toEqual([
      "column_ambiguous",
      "source `billing`: the result has two columns named `status`; give each its own name with `AS`",
    ]);
  });

  it("binary strings, BIT and JSON objects are column_type_unsupported; HEX() compares on purpose", async () => {
    for (const [expr, kind] of [
      ["UNHEX('00FF')", "binary data"],
      ["CAST('ab' AS BINARY)", "binary data"],
      ["b'101'", "binary data"],
      ["JSON_OBJECT('a', 1)", "a structured value"],
    ] as const) {
      expect(await outcome(src, `SELECT ${expr} AS v FROM DUAL WHERE %(value)s = 1`)).toEqual([
        "column_type_unsupported",
        `source \`billing\`: column \`v\` holds ${kind}, which cannot be compared; convert it in the query if that is meant`,
      ]);
    }
    expect(await outcome(src, "SELECT HEX(UNHEX('00FF')) AS b, 1.50 AS n FROM DUAL WHERE %(value)s = 1")).toEqual([
      { b: "00FF", n: "1.50" },
    ]);
  });
});

describe("json answers: a key twice in one object", () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const bodies: Record<string, string> = {
        "/dup": '[{"order_id": 1001, "status": "refunded", "status": "delivered"}]',
        "/dup-nested": '{"rows": [{"order_id": 1001, "meta": {"a": 1, "a": 2}}]}',
        "/same-key-elsewhere": '[{"status": "refunded"}, {"status": "delivered"}]',
        "/escaped": '[{"status": "refunded", "st\\u0061tus": "delivered"}]',
        "/rounded": '[{"order_id": 9007199254740993, "customer_id": "c-2"}]',
        "/inexact": '[{"amount": 0.1000000000000000000001}]',
        "/exact": '[{"order_id": 9007199254740991, "amount": 49.99}]',
      };
      const body = bodies[req.url ?? ""] ?? "[]";
      res.writeHead(200, { "content-type": "application/json" }).end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it("http: a duplicate key, spelled the same or escaped, is column_ambiguous; the same key in two rows is not", async () => {
    const src = await createHttpSource({ name: "orders", config: { base_url: base }, baseDir: "/" });
    const run = (path: string) =>
      src
        .prepare({ path })
        .run({}, never)
        .then(
          (r) => r.rows,
          (e: Error) => [(e as { code?: string }).code, e.message],
        );
    const refused = ["column_ambiguous", "source `orders`: the response names one key twice in an object"];
    expect(await run("/dup")).toEqual(refused);
    expect(await run("/dup-nested")).toEqual(refused);
    expect(await run("/escaped")).toEqual(refused);
    expect(await run("/same-key-elsewhere")).toEqual([{ status: "refunded" }, { status: "delivered" }]);
  });

  it("http: a number JSON.parse would round is a malformed response, never compared rounded (adr/0047)", async () => {
    const src = await createHttpSource({ name: "orders", config: { base_url: base }, baseDir: "/" });
    const run = (path: string) =>
      src
        .prepare({ path })
        .run({}, never)
        .then(
          (r) => r.rows,
          (e: Error) => [(e as { code?: string }).code, e.message],
        );
    const refused = [
      "source_malformed_response",
      "source `orders`: a number in the response is not exact as a double; answer it as a string",
    ];
    expect(await run("/rounded")).toEqual(refused);
    expect(await run("/inexact")).toEqual(refused);
    expect(await run("/exact")).toEqual([{ order_id: 9007199254740991, amount: 49.99 }]);
  });

  it("mcp: JSON text content with a duplicate key is column_ambiguous", async () => {
    const src = await createMcpSource({
      name: "orders-mcp",
      config: { kind: "mcp", command: process.execPath, args: ["mcp-orders-server.mjs"], timeout_ms: 3000 },
      baseDir: FIXTURE_DIR,
    });
    try {
      expect(await codeOf(src.prepare({ tool: "dup_text", arguments: {} }).run({}, never))).toBe("column_ambiguous");
    } finally {
      await src.close();
    }
  });
});
