-- Tables of the live MySQL/MariaDB check cases; names unique to them so adapter tests never
-- collide. Idempotent: run before every case (under GET_LOCK, by the check case kind).
CREATE TABLE IF NOT EXISTS tessera_case_my_orders (
  order_id INT PRIMARY KEY,
  customer_id VARCHAR(32) NOT NULL,
  status VARCHAR(32) NOT NULL,
  amount_cents INT NOT NULL
);
CREATE TABLE IF NOT EXISTS tessera_case_my_refunds (
  refund_id VARCHAR(32) PRIMARY KEY,
  order_id INT NOT NULL
);
INSERT INTO tessera_case_my_orders (order_id, customer_id, status, amount_cents) VALUES
  (1001, 'c-1', 'delivered', 1500),
  (1002, 'c-2', 'delivered', 900),
  (1003, 'c-1', 'placed', 2500)
ON DUPLICATE KEY UPDATE customer_id = VALUES(customer_id), status = VALUES(status), amount_cents = VALUES(amount_cents);
INSERT INTO tessera_case_my_refunds (refund_id, order_id) VALUES ('r-77', 1002)
ON DUPLICATE KEY UPDATE order_id = VALUES(order_id);
