-- Data of the results/ cases: orders with a binary receipt token (a BLOB the check cannot compare
-- as such, hex() can) and a refund whose `status` shadows its order's in a join (two columns named
-- `status`). Both are errors of the check, never a guess at one of the values (adr/0060).
CREATE TABLE orders (order_id INTEGER PRIMARY KEY, status TEXT NOT NULL, token BLOB);
INSERT INTO orders VALUES (1001, 'refunded', x'00ff'), (1002, 'delivered', x'0a0b');
CREATE TABLE refunds (refund_id TEXT PRIMARY KEY, order_id INTEGER NOT NULL, status TEXT NOT NULL);
INSERT INTO refunds VALUES ('r-1', 1001, 'delivered');
