// The OPA-style floor for `tessera serve` (bench/serve.bench.mjs): a minimal node:http handler
// that reads the JSON body, runs the same two prepared statements the refund policy grounds with
// (ownership and status, then absence of a refund), appends one audit row to a SQLite WAL log as
// the service does, and answers JSON — a decision document of the same shape and size as the
// service's (each check with its conditions, pretty-printed), and an audit row with the same keys and
// digests, so both write and send the same bytes (adr/0042: like with like). No validation, no
// callers, no limits, no engine: the least a decision service over these statements can do.
// Usage: node serve-baseline.mjs <billing.db> <audit.db> <policy digest>
import { createHmac, randomUUID } from "node:crypto";
import { createServer } from "node:http";
import Database from "better-sqlite3";

const [billingFile, auditFile, policyDigest] = process.argv.slice(2);
const key = Buffer.alloc(32, 7);
const digest = (v) => `hmac-sha256:${createHmac("sha256", key).update(JSON.stringify(v)).digest("hex")}`;
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
    const owner = row !== undefined && row.customer_id === context.customer_id;
    const delivered = row !== undefined && row.status === "delivered";
    const first = owner && delivered;
    const second = prior.length === 0;
    const check = (i, ok, rows, conditions) => ({
      argument: "order_id",
      check: i,
      source: "billing",
      status: ok ? "matched" : "mismatch",
      outcome: ok ? "allow" : "block",
      attempts: 1,
      rows,
      conditions,
    });
    const decision = {
      decision: first && second ? "allow" : "block",
      tool: "refund_order",
      policy_digest: policyDigest,
      checks: [
        check(0, first, row === undefined ? 0 : 1, [
          { column: "customer_id", ctx: "customer_id", ok: owner },
          { column: "status", value: "delivered", ok: delivered },
        ]),
        check(1, second, prior.length, [{ rows: "eq", value: 0, ok: second }]),
      ],
    };
    const id = randomUUID();
    const event = {
      type: "tessera.decision.v1",
      id,
      at: new Date().toISOString(),
      call_id: randomUUID(),
      caller: "default",
      tool: decision.tool,
      decision: decision.decision,
      policy_digest: policyDigest,
      effective_digest: "",
      arguments_digest: digest(args),
      context_digest: digest(context),
      checks: decision.checks,
      action: "run",
      review_id: null,
    };
    insert.run(id, event.type, event.at, JSON.stringify(event));
    const body = `${JSON.stringify(decision, null, 2)}\n`;
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) }).end(body);
  });
});
server.keepAliveTimeout = 5_000;
server.listen(0, "127.0.0.1", () => process.stderr.write(`listening on http://127.0.0.1:${server.address().port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
