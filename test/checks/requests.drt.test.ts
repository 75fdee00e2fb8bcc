// Differential: the loader's static SQL checks against SQLite itself. For random statements built
// from hostile fragments (keywords inside literals, comments and quoted identifiers, several
// statements, placeholders of every syntax), whatever the static check accepts and SQLite can
// prepare is read-only by SQLite's own verdict, and the placeholder names it finds are exactly the
// ones SQLite needs bound.
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { placeholdersOf } from "../../src/checks/index.js";

const db = new Database(":memory:");
db.exec(
  "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, status TEXT, note TEXT); CREATE TABLE refunds (order_id INTEGER)",
);
afterAll(() => db.close());

const HEAD = [
  "SELECT status FROM orders WHERE",
  "WITH o AS (SELECT * FROM orders) SELECT status FROM o WHERE",
  "DELETE FROM orders WHERE",
  "UPDATE orders SET status = 'x' WHERE",
  "INSERT INTO refunds SELECT order_id FROM orders WHERE",
  "select status from orders where",
  "  /* lead */ SELECT status FROM orders WHERE",
];
const CLAUSE = [
  "order_id = :value",
  "order_id = :id AND status = :value",
  "note = 'delete from orders; :value'",
  'note = "update"',
  "note = 'it''s -- :x'",
  "order_id = ?",
  "order_id = @value",
  "order_id = $value",
  "status IN ('a', :value)",
  "1 = 1 -- ; DROP TABLE orders",
  "1 = 1 /* ; insert */",
  "order_id = :value; DELETE FROM orders",
  "order_id = :value;",
  "[note] = :value",
  "order_id = (SELECT max(order_id) FROM refunds WHERE order_id = :value)",
];
const statement = fc
  .tuple(fc.constantFrom(...HEAD), fc.array(fc.constantFrom(...CLAUSE), { minLength: 1, maxLength: 3 }))
  .map(([h, cs]) => `${h} ${cs.join(" AND ")}`);

function sqliteParameters(sql: string): string[] | null {
  let stmt: Database.Statement;
  try {
    stmt = db.prepare(sql);
  } catch {
    return null; // SQLite cannot prepare it (several statements, syntax): nothing to compare
  }
  if (!stmt.readonly) return ["<writes>"];
  // bind each name the static check found; SQLite reports any it needs and did not get
  const names = placeholdersOf("sqlite", { query: sql }).names;
  try {
    stmt.all(Object.fromEntries(names.map((n) => [n, null])));
  } catch (err) {
    return [`<${(err as Error).message}>`];
  }
  // and SQLite needs every one of them: leaving any out is an error
  const needed: string[] = [];
  for (const n of names) {
    try {
      stmt.all(Object.fromEntries(names.filter((m) => m !== n).map((m) => [m, null])));
    } catch {
      needed.push(n);
    }
  }
  return needed;
}

describe("static SQL checks against SQLite", () => {
  it("accept only what SQLite calls read-only, and find exactly the parameters it needs", () => {
    fc.assert(
      fc.property(statement, (sql) => {
        const scan = placeholdersOf("sqlite", { query: sql });
        if (scan.problems.some((p) => p.severity === "error")) return;
        const got = sqliteParameters(sql);
        if (got === null) return;
        expect(got).toEqual([...scan.names]);
      }),
      { numRuns: 400 },
    );
  });

  it("refuses every writing head", () => {
    for (const head of HEAD.slice(2, 5)) {
      expect(placeholdersOf("sqlite", { query: `${head} order_id = :value` }).problems.map((p) => p.code)).toContain(
        "sql_not_read_only",
      );
    }
  });
});
