// The reference workload of adr/0042, shared by every benchmark that uses it: a SQLite billing
// database of 100,000 orders (ownership and status on `orders`, absence on `refunds`) and the refund
// policy that grounds `refund_order` against it.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";

export const STATUSES = ["placed", "shipped", "delivered", "delivered", "delivered", "cancelled"];

/** The refund policy: ownership and status, then absence of a prior refund. */
export const REFUND_POLICY = `version: 1
sources:
  billing: { kind: sqlite, path: ./billing.db }
defaults: { unlisted_tools: allow }
tools:
  refund_order:
    arguments:
      order_id:
        ground:
          checks:
            - source: billing
              query: SELECT customer_id, status FROM orders WHERE order_id = :value
              match:
                - { column: customer_id, ctx: customer_id }
                - { column: status, value: delivered }
            - source: billing
              query: SELECT refund_id FROM refunds WHERE order_id = :value
              match:
                - { rows: eq, value: 0 }
`;

/** A small deterministic generator (mulberry32), so every run measures the same workload. */
export function rng(seed) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Write `billing.db` and `policy.yaml` into `dir`; returns their paths. */
export function buildRefundWorkload(dir, { orders = 100_000, customers = 10_000, seed = 42 } = {}) {
  const dbFile = join(dir, "billing.db");
  const policyFile = join(dir, "policy.yaml");
  const db = new Database(dbFile);
  db.pragma("journal_mode = OFF");
  db.pragma("synchronous = OFF");
  db.exec(`CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL, amount_cents INTEGER NOT NULL);
           CREATE TABLE refunds (refund_id INTEGER PRIMARY KEY, order_id INTEGER NOT NULL, amount_cents INTEGER NOT NULL);
           CREATE INDEX refunds_order ON refunds (order_id);`);
  const r = rng(seed);
  const insOrder = db.prepare("INSERT INTO orders VALUES (?, ?, ?, ?)");
  const insRefund = db.prepare("INSERT INTO refunds (order_id, amount_cents) VALUES (?, ?)");
  db.transaction(() => {
    for (let i = 1; i <= orders; i++) {
      insOrder.run(
        i,
        `c-${1 + Math.floor(r() * customers)}`,
        STATUSES[Math.floor(r() * STATUSES.length)],
        100 + Math.floor(r() * 50_000),
      );
      if (r() < 0.1) insRefund.run(i, 100);
    }
  })();
  db.close();
  writeFileSync(policyFile, REFUND_POLICY);
  return { dbFile, policyFile };
}

/** The first order the policy allows its owner to refund: delivered, never refunded. */
export function allowedRefund(dbFile) {
  const db = new Database(dbFile, { readonly: true });
  const row = db
    .prepare(
      "SELECT order_id, customer_id FROM orders o WHERE status = 'delivered' AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = o.order_id) ORDER BY order_id LIMIT 1",
    )
    .get();
  db.close();
  return row;
}

/**
 * The customer with the most orders the policy allows them to refund, and those orders' ids in
 * order: a call set every decision of which is `allow`.
 */
export function allowedRefundsOfOneCustomer(dbFile) {
  const db = new Database(dbFile, { readonly: true });
  const allowedOrders =
    "FROM orders o WHERE status = 'delivered' AND NOT EXISTS (SELECT 1 FROM refunds r WHERE r.order_id = o.order_id)";
  const { customer_id } = db
    .prepare(
      `SELECT customer_id, count(*) AS n ${allowedOrders} GROUP BY customer_id ORDER BY n DESC, customer_id LIMIT 1`,
    )
    .get();
  const orderIds = db
    .prepare(`SELECT order_id ${allowedOrders} AND customer_id = ? ORDER BY order_id`)
    .pluck()
    .all(customer_id);
  db.close();
  return { customer_id, orderIds };
}
