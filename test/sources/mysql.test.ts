import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Source } from "../../src/checks/source.js";
import { createMysqlSource } from "../../src/sources/mysql.js";
import {
  closedPort,
  codeOf,
  garbageServer,
  silentServer,
  MYSQL_URL,
  mysqlReachable,
  never,
  REQUIRE_LIVE,
} from "./live.js";

const live = await mysqlReachable();
const T = "tessera_src_my_orders";

it("the live mysql/mariadb server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live, "mysql at TESSERA_MYSQL_URL must be reachable").toBe(true);
});

const make = (config: Record<string, unknown>) =>
  createMysqlSource({ name: "billing", config: { kind: "mysql", url: MYSQL_URL, ...config }, baseDir: "/" });

describe.skipIf(!live)("mysql source (live)", () => {
  let src: Source;
  let admin: mysql.Connection;

  beforeAll(async () => {
    admin = await mysql.createConnection({ uri: MYSQL_URL, multipleStatements: true });
    await admin.query(`DROP TABLE IF EXISTS ${T}`);
    await admin.query(
      `CREATE TABLE ${T} (order_id INT PRIMARY KEY, customer_id VARCHAR(20) NOT NULL, status VARCHAR(20) NOT NULL, amount_cents BIGINT NOT NULL, placed DATE NOT NULL)`,
    );
    await admin.query(
      `INSERT INTO ${T} VALUES (1001, 'c-1', 'delivered', 1500, '2026-11-01'), (1002, 'c-2', 'shipped', 9007199254740993, '2026-11-02')`,
    );
    await admin.query("DROP FUNCTION IF EXISTS tessera_src_my_fail");
    await admin.query(
      "CREATE FUNCTION tessera_src_my_fail() RETURNS INT DETERMINISTIC BEGIN SIGNAL SQLSTATE 'HY000' SET MESSAGE_TEXT = 'internal failure', MYSQL_ERRNO = 1105; RETURN 1; END",
    );
    src = await make({ timeout_ms: 2000, pool_size: 2 });
  });
  afterAll(async () => {
    await src?.close();
    await admin?.query(`DROP TABLE IF EXISTS ${T}`).catch(() => undefined);
    await admin?.end();
  });

  it("binds %(name)s placeholders as a prepared statement and returns rows with their columns", async () => {
    const q = src.prepare({
      query: `SELECT customer_id, status FROM ${T} WHERE order_id = %(value)s AND customer_id = %(customer_id)s`,
    });
    expect(q.parameters).toEqual(["value", "customer_id"]);
    expect(await q.run({ value: 1001, customer_id: "c-1" }, never)).toEqual({
      rows: [{ customer_id: "c-1", status: "delivered" }],
      columns: ["customer_id", "status"],
    });
    expect((await q.run({ value: 1001, customer_id: "c-2" }, never)).rows).toEqual([]);
  });

  it("returns BIGINT exactly (a bigint beyond 2^53) and dates as text", async () => {
    const q = src.prepare({ query: `SELECT amount_cents, placed FROM ${T} WHERE order_id = %(value)s` });
    expect((await q.run({ value: 1001 }, never)).rows).toEqual([{ amount_cents: 1500, placed: "2026-11-01" }]);
    expect((await q.run({ value: 1002 }, never)).rows).toEqual([
      { amount_cents: 9007199254740993n, placed: "2026-11-02" },
    ]);
  });

  it("binds a repeated name at each occurrence and leaves a quoted placeholder as text", async () => {
    const q = src.prepare({ query: "SELECT '%(value)s' AS literal, %(value)s AS a, CONCAT(%(value)s, '') AS b" });
    expect((await q.run({ value: "x'); DROP TABLE t; -- " }, never)).rows).toEqual([
      { literal: "%(value)s", a: "x'); DROP TABLE t; -- ", b: "x'); DROP TABLE t; -- " },
    ]);
  });

  describe("implicit coercion (adr/0011)", () => {
    // the hazard: MariaDB compares '1001abc' with an INT column as 1001 and returns order 1001
    it("the raw server really does match '1001abc' to order 1001", async () => {
      const [rows] = await admin.execute<mysql.RowDataPacket[]>(`SELECT order_id FROM ${T} WHERE order_id = ?`, [
        "1001abc",
      ]);
      expect(rows.map((r) => r.order_id)).toEqual([1001]);
    });

    it("the adapter refuses the coerced result instead of returning another value's row", async () => {
      const q = src.prepare({ query: `SELECT customer_id FROM ${T} WHERE order_id = %(value)s` });
      for (const value of ["1001abc", "1001,1002", "1001 OR 1=1", " 1001 "]) {
        const err = await q.run({ value }, never).catch((e: Error) => e);
        expect((err as { code?: string }).code, value).toBe("source_invalid_query");
        expect((err as Error).message).not.toContain(value.trim());
      }
    });

    it("a number compared with a string column is refused too (0 = 'c-1' is true in MySQL)", async () => {
      const q = src.prepare({ query: `SELECT order_id FROM ${T} WHERE customer_id = %(value)s` });
      expect(await codeOf(q.run({ value: 0 }, never))).toBe("source_invalid_query");
    });

    it("exact values still work, typed as the JSON value: number, numeric string, string", async () => {
      const byId = src.prepare({ query: `SELECT customer_id FROM ${T} WHERE order_id = %(value)s` });
      expect((await byId.run({ value: 1001 }, never)).rows).toEqual([{ customer_id: "c-1" }]);
      expect((await byId.run({ value: "1001" }, never)).rows).toEqual([{ customer_id: "c-1" }]);
      expect((await byId.run({ value: 9999 }, never)).rows).toEqual([]);
      const byCustomer = src.prepare({ query: `SELECT order_id FROM ${T} WHERE customer_id = %(value)s` });
      expect((await byCustomer.run({ value: "c-2" }, never)).rows).toEqual([{ order_id: 1002 }]);
    });
  });

  it("runs every request in a read-only transaction: a forced write fails and writes nothing", async () => {
    for (const query of [
      `DELETE FROM ${T} WHERE order_id = %(value)s`,
      `UPDATE ${T} SET status = 'refunded' WHERE order_id = %(value)s`,
      `INSERT INTO ${T} VALUES (%(value)s, 'x', 'x', 1, '2026-01-01')`,
    ]) {
      expect(await codeOf(src.prepare({ query }).run({ value: 1001 }, never)), query).toBe("source_invalid_query");
    }
    const [rows] = await admin.query<mysql.RowDataPacket[]>(`SELECT status FROM ${T} ORDER BY order_id`);
    expect(rows.map((r) => r.status)).toEqual(["delivered", "shipped"]);
  });

  it("a statement cannot change the session or transaction out from under later checks", async () => {
    const one = await make({ timeout_ms: 300, pool_size: 1 });
    try {
      for (const query of ["SET SESSION TRANSACTION READ WRITE", "SET SESSION max_statement_time = 0", "COMMIT"]) {
        expect(await codeOf(one.prepare({ query }).run({}, never)), query).toBe("source_invalid_query");
      }
      // the connection that ran them was discarded: the next one is read-only and still bounded
      const { rows } = await one
        .prepare({
          query: "SELECT @@session.tx_read_only AS ro, @@session.max_statement_time AS t FROM DUAL WHERE %(value)s = 1",
        })
        .run({ value: 1 }, never);
      expect(rows.map((r) => [Number(r.ro), Number(r.t)])).toEqual([[1, 0.3]]);
      expect(
        await codeOf(one.prepare({ query: `DELETE FROM ${T} WHERE order_id = %(value)s` }).run({ value: 1001 }, never)),
      ).toBe("source_invalid_query");
    } finally {
      await one.close();
    }
    expect(
      await codeOf(
        src
          .prepare({ query: `SELECT 1 FROM ${T} WHERE order_id = %(value)s; DELETE FROM ${T}` })
          .run({ value: 1 }, never),
      ),
    ).toBe("source_invalid_query");
    const [rows] = await admin.query<mysql.RowDataPacket[]>(`SELECT COUNT(*) AS n FROM ${T}`);
    expect(Number(rows[0]?.n)).toBe(2);
  });

  it("reuses pooled connections across requests", async () => {
    const q = src.prepare({
      query: "SELECT CONNECTION_ID() AS id, @@session.tx_read_only AS ro FROM DUAL WHERE %(value)s = 1",
    }).run;
    const ids = new Set<unknown>();
    for (let i = 0; i < 20; i++) {
      const { rows } = await q({ value: 1 }, never);
      expect(Number(rows[0]?.ro)).toBe(1);
      ids.add(rows[0]?.id);
    }
    expect(ids.size).toBe(1);
  });

  describe("fault matrix", () => {
    it("timeout: max_statement_time from timeout_ms gives source_timeout", async () => {
      const slow = await make({ timeout_ms: 200 });
      try {
        expect(
          await codeOf(
            slow
              .prepare({ query: `SELECT SLEEP(2) AS s FROM ${T} WHERE order_id = %(value)s` })
              .run({ value: 1001 }, never),
          ),
        ).toBe("source_timeout");
        expect((await slow.prepare({ query: "SELECT %(value)s AS v" }).run({ value: 7 }, never)).rows).toEqual([
          { v: 7 },
        ]);
      } finally {
        await slow.close();
      }
    });

    it("timeout: the engine's AbortSignal settles the request at once and the pool recovers", async () => {
      const ac = new AbortController();
      const p = src
        .prepare({ query: "SELECT SLEEP(1.5) AS s FROM DUAL WHERE %(value)s = 1" })
        .run({ value: 1 }, ac.signal);
      setTimeout(() => ac.abort(), 50);
      expect(await codeOf(p)).toBe("source_timeout");
      expect((await src.prepare({ query: "SELECT %(value)s AS v" }).run({ value: 8 }, never)).rows).toEqual([{ v: 8 }]);
    });

    it("authentication failure: a wrong password gives source_auth_failed", async () => {
      const url = new URL(MYSQL_URL);
      url.password = "tessera-wrong-password";
      const bad = await createMysqlSource({ name: "x", config: { url: url.toString() }, baseDir: "/" });
      try {
        expect(await codeOf(bad.prepare({ query: "SELECT %(value)s" }).run({ value: 1 }, never))).toBe(
          "source_auth_failed",
        );
      } finally {
        await bad.close();
      }
    });

    it("server error: an error signalled by the server gives source_server_error", async () => {
      expect(
        await codeOf(
          src
            .prepare({ query: "SELECT tessera_src_my_fail() AS f FROM DUAL WHERE %(value)s = 1" })
            .run({ value: 1 }, never),
        ),
      ).toBe("source_server_error");
    });

    it("invalid query: unknown table, syntax error, unknown column each give source_invalid_query", async () => {
      for (const query of [
        "SELECT * FROM tessera_no_such_table WHERE a = %(value)s",
        "SELEC 1 WHERE %(value)s",
        `SELECT nope FROM ${T} WHERE order_id = %(value)s`,
      ]) {
        expect(await codeOf(src.prepare({ query }).run({ value: 1 }, never)), query).toBe("source_invalid_query");
      }
    });

    it("malformed response: more than 10,000 rows is refused, not truncated", async () => {
      // MariaDB's sequence engine: seq_1_to_20000 is a virtual table of 1..20000
      const q = src.prepare({ query: "SELECT seq AS n FROM seq_1_to_20000 WHERE seq <= %(value)s" });
      expect(await codeOf(q.run({ value: 10001 }, never))).toBe("source_malformed_response");
      expect((await q.run({ value: 10000 }, never)).rows.length).toBe(10000);
    });

    it("timeout: a server that accepts and never answers hits the connection timeout (timeout_ms)", async () => {
      const s = await silentServer();
      const bad = await createMysqlSource({
        name: "x",
        config: { url: `mysql://root@127.0.0.1:${s.port}/test`, timeout_ms: 150 },
        baseDir: "/",
      });
      try {
        expect(await codeOf(bad.prepare({ query: "SELECT %(value)s AS v" }).run({ value: 1 }, never))).toBe(
          "source_timeout",
        );
      } finally {
        await bad.close().catch(() => undefined);
        await s.close();
      }
    });

    it("connection refused: a closed port gives source_unreachable", async () => {
      const port = await closedPort();
      const bad = await createMysqlSource({
        name: "x",
        config: { url: `mysql://root@127.0.0.1:${port}/test`, timeout_ms: 1000 },
        baseDir: "/",
      });
      try {
        expect(await codeOf(bad.prepare({ query: "SELECT %(value)s" }).run({ value: 1 }, never))).toBe(
          "source_unreachable",
        );
      } finally {
        await bad.close();
      }
    });

    it("malformed response: a peer that does not speak the protocol gives source_malformed_response", async () => {
      const g = await garbageServer(true);
      const bad = await createMysqlSource({
        name: "x",
        config: { url: `mysql://root@127.0.0.1:${g.port}/test`, timeout_ms: 1000 },
        baseDir: "/",
      });
      try {
        expect(await codeOf(bad.prepare({ query: "SELECT %(value)s" }).run({ value: 1 }, never))).toBe(
          "source_malformed_response",
        );
      } finally {
        await bad.close().catch(() => undefined);
        await g.close();
      }
    });
  });
});
