// Property: adversarial argument and context values (quotes, `;`, `--`, `/*`, NUL, Unicode,
// 100 KB strings) are data, never SQL. The database file is never written (its hash is
// unchanged) and every query answers exactly what a naive reference over the same rows answers,
// so no value changed a query's structure.
import { numberProblem, numericStringProblem } from "../../src/core/numbers.js";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parsePolicy } from "../../src/checks/index.js";
import type { Gate } from "../../src/checks/engine.js";
import { sha256Hex } from "../../src/platform/digest.js";
import { createGate } from "../../src/gate.js";

const HOSTILE = [
  "'",
  "''",
  '"',
  ";",
  "--",
  "/*",
  "*/",
  "\u0000",
  "\\",
  "%",
  "_",
  "`",
  "[",
  "]",
  "(",
  ")",
  ":value",
  "?",
  "$1",
  "%(value)s",
  "' OR '1'='1",
  "'; DROP TABLE orders; --",
  "1; DELETE FROM orders",
  "x' UNION SELECT customer_id, status FROM orders --",
  "'); ATTACH DATABASE '/tmp/pwn.db' AS p; --",
  "ǅ",
  "İ",
  "\u202e",
  "🧾",
  "\ud800",
  "ß",
  "ﬃ",
  "\r\n",
];

const hostileString = fc.oneof(
  fc.constantFrom(...HOSTILE),
  fc.array(fc.constantFrom(...HOSTILE), { minLength: 1, maxLength: 6 }).map((xs) => xs.join("")),
  fc.string({ unit: "binary", maxLength: 40 }),
  fc
    .tuple(fc.constantFrom(...HOSTILE), fc.integer({ min: 100_000, max: 102_400 }))
    .map(([s, n]) => s.repeat(Math.ceil(n / s.length)).slice(0, n)),
);
const hostileValue = fc.oneof(
  { weight: 6, arbitrary: hostileString },
  { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null)) },
);

// rows whose keys are themselves hostile, so an equality the reference finds is a real match
const ORDERS: [string, string, string][] = [
  ["1001", "c-1", "delivered"],
  ["' OR '1'='1", "c-2", "delivered"],
  ["'; DROP TABLE orders; --", "c-3", "shipped"],
  ["\u0000", "c-1", "placed"],
  ["🧾", "c-4", "delivered"],
];

let dir: string;
let file: string;
let before: string;
let gate: Gate;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "tessera-inject-"));
  file = join(dir, "billing.db");
  const db = new Database(file);
  db.exec(
    "CREATE TABLE orders (order_id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL); CREATE TABLE canary (n INTEGER);",
  );
  const ins = db.prepare("INSERT INTO orders VALUES (?, ?, ?)");
  for (const r of ORDERS) ins.run(...r);
  db.prepare("INSERT INTO canary VALUES (1)").run();
  db.close();
  before = sha256Hex(readFileSync(file));
  const policy = parsePolicy(
    `version: 1
context: [customer_id]
sources:
  billing: { kind: sqlite, path: ${JSON.stringify(file)} }
tools:
  refund_order:
    arguments:
      order_id:
        ground:
          checks:
            - source: billing
              query: SELECT customer_id, status FROM orders WHERE order_id = :value AND customer_id = :customer_id
              match: [ { rows: gte, value: 0 } ]
            - source: billing
              query: SELECT order_id FROM orders WHERE order_id = :value
              match: [ { rows: eq, value: 1 } ]
      note:
        ground:
          checks:
            - source: billing
              query: "SELECT order_id FROM orders WHERE status = :value OR order_id = :note -- ' :value"
              match: [ { rows: gte, value: 0 } ]
`,
    "inject.yaml",
    { env: {} },
  );
  gate = createGate(policy);
});

afterAll(async () => {
  await gate.close();
});

const bindsAsIs = (v: unknown) =>
  typeof v === "number" ? numberProblem(v) === null : typeof v !== "string" || numericStringProblem(v) === null;
const bindable = (v: unknown) => (typeof v === "boolean" ? (v ? 1 : 0) : v);
const same = (cell: string, v: unknown) => {
  // a TEXT column compares text exactly; a whole number is bound as INTEGER and compared as its decimal text
  const b = bindable(v);
  if (typeof b === "number") return Number.isSafeInteger(b) && String(b) === cell;
  return typeof b === "string" && b === cell;
};

describe("adversarial values are data", () => {
  it("never write the database and answer exactly what a naive reference answers", async () => {
    await fc.assert(
      fc.asyncProperty(hostileValue, hostileValue, hostileValue, async (orderId, note, customer) => {
        // values the engine refuses before any query (adr/0047) are pinned by their own tests
        fc.pre([orderId, note, customer].every(bindsAsIs));
        const d = await gate.check(
          { tool: "refund_order", arguments: { order_id: orderId, note } },
          { customer_id: customer },
        );
        const byId = ORDERS.filter(([id]) => same(id, orderId));
        const byOwner = byId.filter(([, c]) => same(c, customer));
        expect(d.checks.map((c) => [c.status, c.rows])).toEqual([
          ["matched", byOwner.length],
          [byId.length === 1 ? "matched" : "mismatch", byId.length],
          ["matched", ORDERS.filter(([id, , status]) => same(status, note) || same(id, note)).length],
        ]);
      }),
      { numRuns: 150 },
    );
    expect(sha256Hex(readFileSync(file))).toBe(before);
    const db = new Database(file, { readonly: true });
    expect(db.prepare("SELECT count(*) AS n FROM orders").get()).toEqual({ n: ORDERS.length });
    expect(db.prepare("SELECT n FROM canary").all()).toEqual([{ n: 1 }]);
    db.close();
  });

  it("answers each hostile row key with exactly its own row", async () => {
    for (const [id, customer] of ORDERS) {
      const d = await gate.check(
        { tool: "refund_order", arguments: { order_id: id, note: id } },
        { customer_id: customer },
      );
      expect(d.checks.map((c) => c.rows)).toEqual([1, 1, 1]);
      expect(d.decision).toBe("allow");
    }
    expect(sha256Hex(readFileSync(file))).toBe(before);
  });
});
