// What the three example agents share: the refunds policy, the host's session, a review queue in a
// scratch folder, and the refund tools' bodies (they only say what they would do).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createGate, loadPolicy } from "tessera-trust";
import { approveReview, openReviewStore } from "tessera-trust/review";

const here = dirname(fileURLToPath(import.meta.url));

/** The gate over examples/refunds/policy.yaml, and a review queue `tessera review --store <file>` reads. */
export async function setup() {
  const gate = createGate(await loadPolicy(join(here, "..", "refunds", "policy.yaml")));
  const scratch = mkdtempSync(join(tmpdir(), "tessera-agent-"));
  const storeFile = join(scratch, "queue.db");
  const queue = await openReviewStore(storeFile);
  const ran = [];
  return {
    gate,
    queue,
    storeFile,
    ran,
    /** The session of the signed-in customer: the only trusted context. */
    session: { customer_id: "c-1" },
    refund: async ({ order_id, amount_cents }) => {
      ran.push(`refund_order ${order_id}`);
      return `refunded ${amount_cents} cents on order ${order_id}`;
    },
    cancel: async ({ order_id }) => {
      ran.push(`cancel_order ${order_id}`);
      return `cancelled order ${order_id}`;
    },
    /** What a reviewer does with `tessera review approve <id> --store <file>`. */
    approve: (id) => approveReview(queue.reviews, queue.audit, id, "example-reviewer", Date.now()),
    async close() {
      await gate.close();
      await queue.close();
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}

/** The scripted turns every example runs: an allowed refund, a blocked one, a held cancellation. */
export const TURNS = [
  { tool: "refund_order", args: { order_id: 1001, amount_cents: 4999 } },
  { tool: "refund_order", args: { order_id: 1003, amount_cents: 2500 } },
  { tool: "cancel_order", args: { order_id: 1001 } },
];

/** The review id in a tool answer that says the call was held. */
export const heldId = (text) => /held for human review as (rv_[0-9a-f]{12})/.exec(text)?.[1] ?? null;
