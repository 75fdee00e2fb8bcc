// Policies and a counting refund tool shared by the adapter tests: examples/refunds' SQLite billing
// database for ownership and status, and an HTTP Source on a port nobody listens on for outages.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGate, loadPolicy } from "../../src/index.js";
import { root } from "../mcp/helpers.js";

const billing = join(root, "examples", "refunds", "billing.db");

/** refund_order: the order is the session customer's and delivered; cancel_order: held unless placed or shipped. */
export function refundPolicy(): string {
  return `version: 1
sources:
  billing: { kind: sqlite, path: ${JSON.stringify(billing)}, timeout_ms: 2000 }
defaults: { on_fail: block, retry: { attempts: 1, on_error: block }, unlisted_tools: block }
tools:
  refund_order:
    arguments:
      order_id:
        ground:
          checks:
            - source: billing
              query: SELECT customer_id, status FROM orders WHERE order_id = :value
              match: [{ column: customer_id, ctx: customer_id }, { column: status, value: delivered }]
  cancel_order:
    arguments:
      order_id:
        ground:
          on_fail: hold
          checks:
            - source: billing
              query: SELECT customer_id, status FROM orders WHERE order_id = :value
              match: [{ column: customer_id, ctx: customer_id }, { column: status, op: in, value: [placed, shipped] }]
`;
}

/** refund_order over a Source that cannot be reached; `on_error` as given. */
export function outagePolicy(onError: "block" | "hold"): string {
  return `version: 1
sources:
  billing: { kind: http, base_url: "http://127.0.0.1:9", timeout_ms: 2000 }
defaults: { retry: { attempts: 1, on_error: ${onError} } }
tools:
  refund_order:
    arguments:
      order_id:
        ground:
          checks:
            - source: billing
              path: "/orders/{value}"
              match: [{ column: customer_id, ctx: customer_id }]
`;
}

/** A scratch folder with the policies written, and gates over them. */
export function workspace(name: string) {
  const dir = mkdtempSync(join(tmpdir(), `tessera-${name}-`));
  const gates: { close(): Promise<void> }[] = [];
  return {
    dir,
    async gate(text: string) {
      const file = join(dir, `policy-${gates.length}.yaml`);
      writeFileSync(file, text);
      const g = createGate(await loadPolicy(file));
      gates.push(g);
      return g;
    },
    async cleanup() {
      for (const g of gates) await g.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The host's session: who is signed in. */
export const SESSION = { customer_id: "c-1" } as const;

/** A tool body that counts its runs, by order. */
export function counter() {
  const runs: unknown[] = [];
  return {
    runs,
    async refund(input: { order_id: number }) {
      runs.push(input.order_id);
      return { refunded: input.order_id };
    },
  };
}
