// TEMPORARY stub decision function until the check engine lands; replaced by a SQLite-grounded policy.
import type { AuditSink, Decide, DecisionLike } from "../../src/mcp/gateway/types.js";

export interface AuditEvent {
  readonly type: string;
  readonly [key: string]: unknown;
}

export interface GatewayPolicy {
  readonly decide: Decide;
  readonly audit: AuditSink;
  readonly orders: { allowed: number; blocked: number; held: number; unavailable: number };
  events(): AuditEvent[];
  close(): Promise<void>;
}

export async function openGatewayPolicy(_dir: string, clock: () => number): Promise<GatewayPolicy> {
  const events: AuditEvent[] = [];
  let n = 0;
  const decide: Decide = async (call) => {
    const id = Number(call.arguments.order_id);
    const d = (decision: DecisionLike["decision"], status: string, code: string, check: number): DecisionLike => ({
      decision,
      policy_digest: "sha256:stub",
      checks: [{ argument: "order_id", check, source: "billing", status, outcome: decision, attempts: 1, conditions: status === "mismatch" ? [{ column: "x", ok: false, code }] : [], ...(status === "error" ? { error: { code, message: "m" } } : {}) }],
    });
    if (call.tool !== "refund_order") return { decision: "allow", policy_digest: "sha256:stub", checks: [] };
    if (id === 1) return d("allow", "matched", "", 0);
    if (id === 2) return d("block", "mismatch", "not_equal", 0);
    if (id === 3) return d("hold", "mismatch", "not_equal", 1);
    return d("hold", "error", "source_invalid_query", 1);
  };
  return {
    decide,
    audit: { append: (type, payload) => events.push({ type, id: `e${++n}`, at: new Date(clock()).toISOString(), ...payload }), close: () => undefined },
    orders: { allowed: 1, blocked: 2, held: 3, unavailable: 4 },
    events: () => events,
    close: async () => undefined,
  };
}
