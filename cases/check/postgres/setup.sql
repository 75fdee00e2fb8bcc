-- Tables of the live Postgres check cases; names unique to them so adapter tests never collide.
-- Idempotent: run before every case (under a lock, in one transaction, by the check case kind).
CREATE TABLE IF NOT EXISTS tessera_case_pg_orders (
  order_id INTEGER PRIMARY KEY,
  customer_id TEXT NOT NULL,
  status TEXT NOT NULL,
  amount_cents INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS tessera_case_pg_refunds (
  refund_id TEXT PRIMARY KEY,
  order_id INTEGER NOT NULL
);
INSERT INTO tessera_case_pg_orders (order_id, customer_id, status, amount_cents) VALUES
  (1001, 'c-1', 'delivered', 1500),
  (1002, 'c-2', 'delivered', 900),
  (1003, 'c-1', 'placed', 2500)
ON CONFLICT (order_id) DO UPDATE SET customer_id = EXCLUDED.customer_id, status = EXCLUDED.status, amount_cents = EXCLUDED.amount_cents;
INSERT INTO tessera_case_pg_refunds (refund_id, order_id) VALUES ('r-77', 1002)
ON CONFLICT (refund_id) DO UPDATE SET order_id = EXCLUDED.order_id;
