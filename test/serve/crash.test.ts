// kill -9 of `tessera serve` under load, then a restart on the same store: every decision that was
// answered 200 is in the audit log (it is written before the answer), and every hold that was
// answered is still in the queue, pending.
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type Answer, check, refundsPolicy, request, runCli, startServeProcess, tempDir } from "./harness.js";

describe("kill -9 during load", () => {
  it("loses no answered decision from the audit log and no hold from the queue", async () => {
    const t = tempDir("tessera-serve-crash");
    const store = join(t.dir, "store.db");
    const first = await startServeProcess(["--policy", refundsPolicy, "--store", store]);
    const answered: Answer[] = [];
    let killed = false;
    let n = 0;
    const worker = async () => {
      while (!killed) {
        const i = n++;
        // allows, blocks, and holds of distinct calls (each a new review)
        const body =
          i % 3 === 0
            ? { tool: "cancel_order", arguments: { order_id: 1001, note: i }, context: { customer_id: "c-1" } }
            : {
                tool: "refund_order",
                arguments: { order_id: i % 2 === 0 ? 1001 : 1003, amount_cents: 10 },
                context: { customer_id: "c-1" },
              };
        try {
          const a = await check(first.url, body);
          answered.push(a);
          if (answered.length === 120) {
            killed = true;
            first.child.kill("SIGKILL");
          }
        } catch {
          return; // the connection died with the process
        }
      }
    };
    await Promise.all(Array.from({ length: 6 }, worker));
    expect(await first.exited).toBe("SIGKILL");
    const ok = answered.filter((a) => a.status === 200);
    expect(ok.length).toBeGreaterThanOrEqual(120);
    const holds = ok
      .filter((a) => a.headers.get("tessera-action") === "hold")
      .map((a) => a.headers.get("tessera-review-id")!);
    expect(holds.length).toBeGreaterThan(20);

    const second = await startServeProcess(["--policy", refundsPolicy, "--store", store]);
    try {
      const audit = await runCli(["audit", "export", "--jsonl", "--type", "tessera.decision.v1", "--store", store]);
      expect(audit.code, audit.stderr).toBe(0);
      const logged = new Map(
        audit.stdout
          .trim()
          .split("\n")
          .map((l) => JSON.parse(l) as { call_id: string; decision: string; action: string })
          .map((e) => [e.call_id, e]),
      );
      for (const a of ok) {
        const e = logged.get(a.headers.get("tessera-call-id")!);
        expect(e, "an answered decision is missing from the audit log").toBeDefined();
        expect([e!.decision, e!.action]).toEqual([
          (a.json as { decision: string }).decision,
          a.headers.get("tessera-action"),
        ]);
      }
      for (const id of holds) {
        const r = await request(second.url, "GET", `/v1/reviews/${id}`);
        expect([r.status, (r.json as { state: string }).state]).toEqual([200, "pending"]);
      }
    } finally {
      second.child.kill("SIGTERM");
      expect(await second.exited).toBe(0);
      t.cleanup();
    }
  });
});
