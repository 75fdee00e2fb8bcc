// The SQLite source: read-only, `:name` binding, typed values, prepared once, bounded answers.
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { beforeAll, describe, expect, it } from "vitest";
import { SourceError } from "../../src/checks/index.js";
import { sha256Hex } from "../../src/platform/digest.js";
import { openSqlite, SQLITE_MAX_ROWS } from "../../src/sources/sqlite.js";

let file: string;
beforeAll(() => {
  const dir = mkdtempSync(join(tmpdir(), "tessera-sqlite-"));
  file = join(dir, "t.db");
  const db = new Database(file);
  db.exec(`CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, big INTEGER, flag INTEGER, blob BLOB, real REAL);
           INSERT INTO t VALUES (1, 'a', 9007199254740993, 1, x'00ff', 1.5), (2, NULL, 7, 0, NULL, NULL);
           CREATE TABLE k (key TEXT PRIMARY KEY); INSERT INTO k VALUES ('1001');`);
  db.exec(
    `CREATE TABLE many (n INTEGER); WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${SQLITE_MAX_ROWS + 10}) INSERT INTO many SELECT i FROM c;`,
  );
  db.close();
});

const open = (config: Record<string, unknown> = {}) =>
  openSqlite({ name: "t", config: { kind: "sqlite", path: file, timeout_ms: 5000, ...config }, baseDir: "/" });
const signal = () => new AbortController().signal;

describe("sqlite source", () => {
  it("binds :name parameters and returns typed rows and columns", async () => {
    const s = await open();
    const p = s.prepare({
      query: "SELECT id, name, big, flag, hex(blob) AS blob, real FROM t WHERE id = :value OR name = :who ORDER BY id",
    });
    expect(p.parameters).toEqual(["value", "who"]);
    const r = await p.run({ value: 2, who: "a" }, signal());
    expect(r.columns).toEqual(["id", "name", "big", "flag", "blob", "real"]);
    expect(r.rows).toEqual([
      { id: 1, name: "a", big: 9007199254740993n, flag: 1, blob: "00FF", real: 1.5 },
      { id: 2, name: null, big: 7, flag: 0, blob: "", real: null }, // hex(NULL) is the empty text
    ]);
    // a BLOB itself is refused, not compared as some text of it (adr/0060)
    const blob = await s
      .prepare({ query: "SELECT blob FROM t WHERE id = :value" })
      .run({ value: 1 }, signal())
      .catch((e: SourceError) => e.code);
    expect(blob).toBe("column_type_unsupported");
    await s.close();
  });

  it("binds booleans as 1/0 and whole numbers as integers", async () => {
    const s = await open();
    expect(
      (await s.prepare({ query: "SELECT id FROM t WHERE flag = :value" }).run({ value: true }, signal())).rows,
    ).toEqual([{ id: 1 }]);
    expect(
      (await s.prepare({ query: "SELECT key FROM k WHERE key = :value" }).run({ value: 1001 }, signal())).rows,
    ).toEqual([{ key: "1001" }]);
    await s.close();
  });

  it("opens read-only: a write never reaches the file", async () => {
    const before = sha256Hex(readFileSync(file));
    const s = await open();
    expect(() => s.prepare({ query: "DELETE FROM t WHERE id = :value" })).toThrow(SourceError);
    expect(() => s.prepare({ query: "SELECT 1 AS x; DELETE FROM t" })).toThrow("a query must be one statement");
    await s.close();
    expect(sha256Hex(readFileSync(file))).toBe(before);
  });

  it("reports invalid queries and missing files with source codes", async () => {
    const s = await open();
    const err = (() => {
      try {
        s.prepare({ query: "SELECT nope FROM t WHERE id = :value" });
      } catch (e) {
        return e as SourceError;
      }
      return null;
    })();
    expect([err?.code, err?.message]).toEqual(["source_invalid_query", "sqlite source `t`: no such column: nope"]);
    await s.close();
    await expect(open({ path: "/no/such.db" })).rejects.toMatchObject({
      code: "source_unreachable",
      message: "sqlite source `t`: no such database file `/no/such.db`",
    });
  });

  it("cuts off an answer of more than SQLITE_MAX_ROWS rows", async () => {
    const s = await open();
    await expect(
      s.prepare({ query: "SELECT n FROM many WHERE :value IS NOT NULL" }).run({ value: 1 }, signal()),
    ).rejects.toMatchObject({ code: "source_malformed_response" });
    await s.close();
  });

  it("fails closed with source_timeout when an answer comes after the timeout", async () => {
    const s = await open({ timeout_ms: 1 });
    const slow = s.prepare({
      query:
        "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300000) SELECT count(*) AS n FROM c WHERE :value IS NOT NULL",
    });
    await expect(slow.run({ value: 1 }, signal())).rejects.toMatchObject({ code: "source_timeout" });
    const aborted = new AbortController();
    aborted.abort();
    await expect(
      s.prepare({ query: "SELECT 1 AS x WHERE :value" }).run({ value: 1 }, aborted.signal),
    ).rejects.toMatchObject({ code: "source_timeout" });
    await s.close();
    await s.close();
  });
});
