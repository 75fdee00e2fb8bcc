import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Source } from "../../src/checks/source.js";
import { createPostgresSource } from "../../src/sources/postgres.js";
import { closedPort, codeOf, garbageServer, silentServer, never, PG_URL, pgReachable, REQUIRE_LIVE } from "./live.js";

const live = await pgReachable();
const T = "tessera_src_pg_orders";

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live, `postgres at TESSERA_PG_URL must be reachable`).toBe(true);
});

const make = (config: Record<string, unknown>) =>
  createPostgresSource({ name: "billing", config: { kind: "postgres", url: PG_URL, ...config }, baseDir: "/" });

describe.skipIf(!live)("postgres source (live)", () => {
  let src: Source;
  const admin = new pg.Client({ connectionString: PG_URL });

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`DROP TABLE IF EXISTS ${T}`);
    await admin.query(
      `CREATE TABLE ${T} (order_id int PRIMARY KEY, customer_id text NOT NULL, status text NOT NULL, amount_cents bigint NOT NULL, placed date NOT NULL)`,
    );
    await admin.query(
      `INSERT INTO ${T} VALUES (1001, 'c-1', 'delivered', 1500, '2026-11-01'), (1002, 'c-2', 'shipped', 9007199254740993, '2026-11-02')`,
    );
    await admin.query(
      `CREATE OR REPLACE FUNCTION tessera_src_pg_fail() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION USING ERRCODE = 'XX000', MESSAGE = 'internal failure'; END $$`,
    );
    src = await make({ timeout_ms: 2000, pool_size: 2 });
  });
  afterAll(async () => {
    await src?.close();
    await admin.query(`DROP TABLE IF EXISTS ${T}`).catch(() => undefined);
    await admin.end();
  });

  it("binds %(name)s placeholders and returns rows with their columns", async () => {
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

  it("returns int8 as a number when exact and a bigint beyond 2^53, dates as the server's text", async () => {
    const q = src.prepare({ query: `SELECT amount_cents, placed FROM ${T} WHERE order_id = %(value)s` });
    expect((await q.run({ value: 1001 }, never)).rows).toEqual([{ amount_cents: 1500, placed: "2026-11-01" }]);
    expect((await q.run({ value: "1002" }, never)).rows).toEqual([
      { amount_cents: 9007199254740993n, placed: "2026-11-02" },
    ]);
  });

  it("leaves a quoted placeholder alone as text and binds the same name twice", async () => {
    const q = src.prepare({ query: `SELECT '%(value)s' AS literal, %(value)s::text AS a, %(value)s::text AS b` });
    expect(q.parameters).toEqual(["value"]);
    expect((await q.run({ value: "x'); DROP TABLE t; --" }, never)).rows).toEqual([
      { literal: "%(value)s", a: "x'); DROP TABLE t; --", b: "x'); DROP TABLE t; --" },
    ]);
  });

  it("runs every request in a read-only transaction: a forced write fails and writes nothing", async () => {
    for (const query of [
      `DELETE FROM ${T} WHERE order_id = %(value)s`,
      `WITH d AS (DELETE FROM ${T} WHERE order_id = %(value)s RETURNING *) SELECT * FROM d`,
      `UPDATE ${T} SET status = 'refunded' WHERE order_id = %(value)s`,
    ]) {
      expect(await codeOf(src.prepare({ query }).run({ value: 1001 }, never))).toBe("source_invalid_query");
    }
    const check = await admin.query(`SELECT status FROM ${T} WHERE order_id = 1001`);
    expect(check.rows).toEqual([{ status: "delivered" }]);
  });

  it("cannot leave the read-only transaction from inside the statement", async () => {
    // one extended-protocol statement only: a second statement is a syntax error, not a second command
    const q = src.prepare({ query: `SELECT 1 AS one WHERE %(value)s::int = 1; COMMIT; DELETE FROM ${T}` });
    expect(await codeOf(q.run({ value: 1 }, never))).toBe("source_invalid_query");
    expect((await admin.query(`SELECT count(*)::int AS n FROM ${T}`)).rows).toEqual([{ n: 2 }]);
  });

  it("a statement cannot change the session for later checks", async () => {
    const one = await make({ timeout_ms: 300, pool_size: 1 });
    try {
      for (const query of [
        "SET statement_timeout = 0",
        "SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE",
        "COMMIT",
      ]) {
        await one
          .prepare({ query })
          .run({}, never)
          .catch(() => undefined);
      }
      const { rows } = await one
        .prepare({
          query:
            "SELECT current_setting('statement_timeout') AS t, current_setting('default_transaction_read_only') AS d WHERE %(value)s::int = 1",
        })
        .run({ value: 1 }, never);
      expect(rows).toEqual([{ t: "300ms", d: "on" }]);
      expect(
        await codeOf(one.prepare({ query: `DELETE FROM ${T} WHERE order_id = %(value)s` }).run({ value: 1001 }, never)),
      ).toBe("source_invalid_query");
    } finally {
      await one.close();
    }
  });

  it("reuses pooled connections across requests", async () => {
    const q = src.prepare({
      query: "SELECT pg_backend_pid() AS pid, current_setting('transaction_read_only') AS ro WHERE %(value)s::int = 1",
    });
    const pids = new Set<unknown>();
    for (let i = 0; i < 20; i++) {
      const { rows } = await q.run({ value: 1 }, never);
      expect(rows[0]?.ro).toBe("on");
      pids.add(rows[0]?.pid);
    }
    expect(pids.size).toBe(1);
    // a statement that failed is rolled back like any other: its session is reused, not reopened
    const bad = src.prepare({ query: `SELECT status FROM ${T} WHERE order_id = %(value)s` });
    expect(await codeOf(bad.run({ value: "1001abc" }, never))).toBe("source_invalid_query");
    expect((await q.run({ value: 1 }, never)).rows[0]?.pid).toBe([...pids][0]);
  });

  describe("fault matrix", () => {
    it("timeout: statement_timeout from timeout_ms gives source_timeout", async () => {
      const slow = await make({ timeout_ms: 150 });
      try {
        expect(
          await codeOf(slow.prepare({ query: "SELECT pg_sleep(2) WHERE %(value)s::int = 1" }).run({ value: 1 }, never)),
        ).toBe("source_timeout");
        // the pool is still usable after a cancelled statement
        expect((await slow.prepare({ query: "SELECT %(value)s::int AS v" }).run({ value: 7 }, never)).rows).toEqual([
          { v: 7 },
        ]);
      } finally {
        await slow.close();
      }
    });

    it("timeout: the engine's AbortSignal settles the request at once and the pool recovers", async () => {
      const ac = new AbortController();
      const p = src.prepare({ query: "SELECT pg_sleep(1.5) WHERE %(value)s::int = 1" }).run({ value: 1 }, ac.signal);
      setTimeout(() => ac.abort(), 50);
      expect(await codeOf(p)).toBe("source_timeout");
      expect((await src.prepare({ query: "SELECT %(value)s::int AS v" }).run({ value: 8 }, never)).rows).toEqual([
        { v: 8 },
      ]);
    });

    it("authentication failure: an unknown role gives source_auth_failed", async () => {
      const bad = await createPostgresSource({
        name: "x",
        config: { url: PG_URL.replace(/\/\/[^@/]*@/, "//tessera_no_such_role@") },
        baseDir: "/",
      });
      try {
        expect(await codeOf(bad.prepare({ query: "SELECT %(value)s::int" }).run({ value: 1 }, never))).toBe(
          "source_auth_failed",
        );
      } finally {
        await bad.close();
      }
    });

    it("server error: an internal error raised by the server gives source_server_error", async () => {
      expect(
        await codeOf(
          src.prepare({ query: "SELECT tessera_src_pg_fail() WHERE %(value)s::int = 1" }).run({ value: 1 }, never),
        ),
      ).toBe("source_server_error");
    });

    it("invalid query: unknown table, syntax error, unknown column each give source_invalid_query", async () => {
      for (const query of [
        "SELECT * FROM tessera_no_such_table WHERE a = %(value)s",
        "SELEC 1 WHERE %(value)s",
        `SELECT nope FROM ${T} WHERE order_id = %(value)s`,
      ]) {
        expect(await codeOf(src.prepare({ query }).run({ value: 1 }, never))).toBe("source_invalid_query");
      }
    });

    it("a value that does not fit the column type is an error, never silently coerced", async () => {
      const q = src.prepare({ query: `SELECT customer_id FROM ${T} WHERE order_id = %(value)s` });
      const err = await q.run({ value: "1001abc" }, never).catch((e: Error) => e);
      expect((err as { code?: string }).code).toBe("source_invalid_query");
      expect((err as Error).message).not.toContain("1001abc");
    });

    it("malformed response: more than 10,000 rows is refused, not truncated", async () => {
      expect(
        await codeOf(
          src
            .prepare({ query: "SELECT g FROM generate_series(1, 10001) g WHERE %(value)s::int = 1" })
            .run({ value: 1 }, never),
        ),
      ).toBe("source_malformed_response");
      expect(
        (
          await src
            .prepare({ query: "SELECT g FROM generate_series(1, 10000) g WHERE %(value)s::int = 1" })
            .run({ value: 1 }, never)
        ).rows.length,
      ).toBe(10000);
    });

    it("timeout: a server that accepts and never answers hits the connection timeout (timeout_ms)", async () => {
      const s = await silentServer();
      const bad = await createPostgresSource({
        name: "x",
        config: { url: `postgres://postgres@127.0.0.1:${s.port}/test`, timeout_ms: 150 },
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
      const bad = await createPostgresSource({
        name: "x",
        config: { url: `postgres://postgres@127.0.0.1:${port}/test`, timeout_ms: 1000 },
        baseDir: "/",
      });
      try {
        expect(await codeOf(bad.prepare({ query: "SELECT %(value)s::int" }).run({ value: 1 }, never))).toBe(
          "source_unreachable",
        );
      } finally {
        await bad.close();
      }
    });

    it("malformed response: a peer that does not speak the protocol gives an error code", async () => {
      const g = await garbageServer();
      const bad = await createPostgresSource({
        name: "x",
        config: { url: `postgres://postgres@127.0.0.1:${g.port}/test`, timeout_ms: 500 },
        baseDir: "/",
      });
      try {
        expect(await codeOf(bad.prepare({ query: "SELECT %(value)s::int" }).run({ value: 1 }, never))).toBe(
          "source_malformed_response",
        );
      } finally {
        await bad.close();
        await g.close();
      }
    });
  });
});
