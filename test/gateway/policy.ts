// A real SQLite-grounded policy for the gateway tests: the check engine over the SQLite adapter,
// and the real audit log. Orders by id % 4: 1 allowed, 2 someone else's (block), 3 not delivered
// (hold: needs judgment), 0 a row whose JSON the source cannot read (hold: verification unavailable).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { decisionPayload } from "../../src/audit/decision.js";
import { type AuditEvent, openAuditLog, readAuditEvents } from "../../src/audit/log.js";
import { createEngine } from "../../src/checks/engine.js";
import { loadPolicy } from "../../src/checks/load.js";
import type { Digester } from "../../src/platform/digest.js";
import type { AuditSink, Decide, DecisionLike, GatewayCall } from "../../src/mcp/gateway/types.js";
import { registryOpener } from "../../src/gate.js";

export const POLICY_YAML = `version: 1
sources:
  billing:
    kind: sqlite
    path: ./billing.db
tools:
  refund_order:
    arguments:
      order_id:
        ground:
          checks:
            - source: billing
              query: SELECT customer_id FROM orders WHERE order_id = :value
              match:
                - { column: customer_id, ctx: customer_id }
            - source: billing
              query: SELECT status, json(meta) AS meta FROM orders WHERE order_id = :value
              match:
                - { column: status, value: delivered }
              on_fail: hold
              retry: { attempts: 0, on_error: hold }
`;

/** The trusted context every test runs with. */
export const CONTEXT = { customer_id: "c-1" };

/** Write billing.db (orders 1..count) and policy.yaml into `dir`; returns the policy path. */
export function writePolicy(dir: string, count = 1000): string {
  const db = new Database(join(dir, "billing.db"));
  db.exec(
    "CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL, meta TEXT NOT NULL)",
  );
  const insert = db.prepare("INSERT INTO orders VALUES (?, ?, ?, ?)");
  db.transaction(() => {
    for (let id = 1; id <= count; id++) {
      const k = id % 4;
      insert.run(id, k === 2 ? "c-2" : "c-1", k === 3 ? "shipped" : "delivered", k === 0 ? "{broken" : "{}");
    }
  })();
  db.close();
  const file = join(dir, "policy.yaml");
  writeFileSync(file, POLICY_YAML);
  writeFileSync(join(dir, "context.json"), JSON.stringify(CONTEXT));
  return file;
}

export interface GatewayPolicy {
  readonly decide: Decide;
  readonly describe: (d: DecisionLike, call: GatewayCall, digest: Digester) => Record<string, unknown>;
  readonly digest: string;
  readonly audit: AuditSink;
  readonly orders: { allowed: number; blocked: number; held: number; unavailable: number };
  events(): AuditEvent[];
  close(): Promise<void>;
}

/** The engine over a fresh billing.db in `dir`, and an audit log in `dir/audit.db`. */
export async function openGatewayPolicy(dir: string, clock: () => number): Promise<GatewayPolicy> {
  const policy = await loadPolicy(writePolicy(dir), { env: {}, cwd: dir });
  const engine = createEngine(policy, registryOpener(policy));
  const auditFile = join(dir, "audit.db");
  const log = openAuditLog(auditFile, { clock: () => new Date(clock()) });
  return {
    decide: (call) => engine.check(call, CONTEXT),
    describe: (d, call, digest) =>
      decisionPayload(d as Parameters<typeof decisionPayload>[0], call, CONTEXT, { digest }),
    digest: policy.digest,
    audit: log,
    orders: { allowed: 1, blocked: 2, held: 3, unavailable: 4 },
    events: () => readAuditEvents(auditFile),
    async close() {
      log.close();
      await engine.close();
    },
  };
}
