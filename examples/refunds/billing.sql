-- The example billing database of examples/refunds: customers, their orders and the refunds
-- already paid. `node examples/refunds/build-db.mjs` rebuilds billing.db from this file.
CREATE TABLE customers (
  customer_id TEXT PRIMARY KEY,
  name        TEXT NOT NULL,
  email       TEXT NOT NULL UNIQUE
);

CREATE TABLE orders (
  order_id     INTEGER PRIMARY KEY,
  customer_id  TEXT NOT NULL REFERENCES customers (customer_id),
  status       TEXT NOT NULL CHECK (status IN ('placed', 'shipped', 'delivered', 'cancelled', 'returned')),
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  currency     TEXT NOT NULL DEFAULT 'EUR',
  placed_at    TEXT NOT NULL
);
CREATE INDEX orders_customer ON orders (customer_id);

CREATE TABLE refunds (
  refund_id    INTEGER PRIMARY KEY,
  order_id     INTEGER NOT NULL REFERENCES orders (order_id),
  amount_cents INTEGER NOT NULL CHECK (amount_cents > 0),
  reason       TEXT NOT NULL,
  created_at   TEXT NOT NULL
);
CREATE INDEX refunds_order ON refunds (order_id);

INSERT INTO customers (customer_id, name, email) VALUES
  ('c-1', 'Ada Lovelace',     'ada@example.com'),
  ('c-2', 'Grace Hopper',     'grace@example.com'),
  ('c-3', 'Katherine Johnson', 'katherine@example.com'),
  ('c-4', 'Émilie du Châtelet', 'emilie@example.com');

INSERT INTO orders (order_id, customer_id, status, amount_cents, currency, placed_at) VALUES
  (1001, 'c-1', 'delivered', 4999,  'EUR', '2026-10-02T09:14:00Z'),
  (1002, 'c-1', 'shipped',   12900, 'EUR', '2026-11-20T16:40:00Z'),
  (1003, 'c-2', 'delivered', 2500,  'EUR', '2026-09-11T11:05:00Z'),
  (1004, 'c-2', 'cancelled', 7800,  'EUR', '2026-11-01T08:30:00Z'),
  (1005, 'c-3', 'delivered', 31000, 'EUR', '2026-08-28T13:22:00Z'),
  (1006, 'c-3', 'placed',    1599,  'EUR', '2026-11-29T19:03:00Z'),
  (1007, 'c-4', 'returned',  8450,  'EUR', '2026-10-15T10:10:00Z'),
  (1008, 'c-4', 'delivered', 640,   'EUR', '2026-11-05T07:55:00Z'),
  (1009, 'c-1', 'delivered', 18999, 'EUR', '2026-07-30T15:45:00Z'),
  (1010, 'c-2', 'shipped',   5400,  'EUR', '2026-11-27T12:00:00Z');

-- 1003 has been refunded in full, 1009 in part: another refund of either is a duplicate
INSERT INTO refunds (refund_id, order_id, amount_cents, reason, created_at) VALUES
  (501, 1003, 2500, 'damaged in transit', '2026-09-20T10:00:00Z'),
  (502, 1007, 8450, 'returned',           '2026-10-25T09:30:00Z'),
  (503, 1009, 5000, 'partial: late delivery', '2026-08-10T14:12:00Z');
