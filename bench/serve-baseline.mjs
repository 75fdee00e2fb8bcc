// The OPA-style floor for `tessera serve` (bench/serve.bench.mjs): a minimal node:http handler
// that reads the JSON body, runs the same two prepared statements the refund policy grounds with
// (ownership and status, then absence of a refund), appends one audit row to a SQLite WAL log as
// the service does, and answers JSON. No validation, no callers, no limits: the least a decision
// service over these statements can do. Usage: node serve-baseline.mjs <billing.db> <audit.db>
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import Database from "better-sqlite3";

const [billingFile, auditFile] = process.argv.slice(2);
const billing = new Database(billingFile, { readonly: true });
const order = billing.prepare("SELECT customer_id, status FROM orders WHERE order_id = ?");
const refunds = billing.prepare("SELECT refund_id FROM refunds WHERE order_id = ?");
const audit = new Database(auditFile);
audit.pragma("journal_mode = WAL");
audit.pragma("synchronous = NORMAL");
audit.exec(
  "CREATE TABLE IF NOT EXISTS audit_events (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, type TEXT NOT NULL, at TEXT NOT NULL, body TEXT NOT NULL)",
);
const insert = audit.prepare("INSERT INTO audit_events (id, type, at, body) VALUES (?, ?, ?, ?)");

const server = createServer((req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const { arguments: args, context } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    const row = order.get(args.order_id);
    const prior = refunds.all(args.order_id);
    const ok =
      row !== undefined && row.customer_id === context.customer_id && row.status === "delivered" && prior.length === 0;
    const decision = {
      decision: ok ? "allow" : "block",
      tool: "refund_order",
      checks: [{ rows: row === undefined ? 0 : 1 }, { rows: prior.length }],
    };
    const id = randomUUID();
    insert.run(id, "tessera.decision.v1", new Date().toISOString(), JSON.stringify({ id, ...decision }));
    const body = `${JSON.stringify(decision, null, 2)}\n`;
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, "127.0.0.1", () => process.stderr.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
