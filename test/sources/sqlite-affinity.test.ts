// A number and its canonical spelling as a string (`1009`, `"1009"`) ground alike on SQLite, also
// where an expression has no type affinity (json_extract, a view): otherwise an agent picks the
// spelling under which "no refund exists yet" holds (adr/0103).
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGate, type Gate, loadPolicy } from "../../src/index.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-affinity-"));
let gate: Gate;

beforeAll(async () => {
  const db = new Database(join(dir, "billing.db"));
  db.exec(`CREATE TABLE orders (order_id INTEGER PRIMARY KEY, status TEXT);
           CREATE TABLE events (id INTEGER PRIMARY KEY, kind TEXT, payload TEXT);
           CREATE VIEW refunded AS SELECT json_extract(payload, '$.order_id') AS order_id FROM events WHERE kind = 'refund';
           INSERT INTO orders VALUES (1009, 'delivered'), (1010, 'delivered'), (12, 'delivered');
           INSERT INTO events VALUES (1, 'refund', '{"order_id": 1009}');`);
  db.close();
  const policy = join(dir, "policy.yaml");
  writeFileSync(
    policy,
    `version: 1
sources: { billing: { kind: sqlite, path: ./billing.db } }
defaults: { unlisted_tools: block }
tools:
  refund_order:
    arguments:
      order_id:
        ground:
          checks:
            - source: billing
              query: SELECT status FROM orders WHERE order_id = :value
              match: [ { column: status, value: delivered } ]
            - source: billing
              query: SELECT id FROM events WHERE kind = 'refund' AND json_extract(payload, '$.order_id') = :value
              match: [ { rows: eq, value: 0 } ]
            - source: billing
              query: SELECT order_id FROM refunded WHERE order_id = :value
              match: [ { rows: eq, value: 0 } ]
`,
  );
  gate = createGate(await loadPolicy(policy));
});
afterAll(async () => {
  await gate?.close();
});

const decide = async (order_id: unknown) =>
  (await gate.check({ tool: "refund_order", arguments: { order_id } })).checks.map((c) => c.outcome);

describe("sqlite: a value's spelling never changes its verdict", () => {
  it("blocks order 1009, refunded already, as a number and as its string", async () => {
    expect(await decide(1009)).toEqual(["allow", "block", "block"]);
    expect(await decide("1009")).toEqual(["allow", "block", "block"]);
  });

  it("allows order 1010, not refunded, either way", async () => {
    expect(await decide(1010)).toEqual(["allow", "allow", "allow"]);
    expect(await decide("1010")).toEqual(["allow", "allow", "allow"]);
  });

  it("still compares text as text: a non-numeric string binds as written", async () => {
    expect(await decide("c-1009")).toEqual(["block", "allow", "allow"]);
  });
});
