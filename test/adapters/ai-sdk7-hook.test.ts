// tessera-trust/ai-sdk's `toolApproval` on Node 20, called as AI SDK 7's `resolveToolApproval`
// (ai@7.0.173) calls the function form: `{ toolCall, tools, toolsContext, runtimeContext, messages }`.
// The real ai@7 runs it under Node 22 in ai-sdk7.node22.test.ts; here the paths that need the SQLite
// billing database and review store: the review queue, the tool's own `needsApproval`, host context.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { type AiSdk7ApprovalInfo, toolApproval } from "../../src/adapters/ai-sdk.js";
import { openReviewStore } from "../../src/review/index.js";
import { cliPath } from "../mcp/helpers.js";
import { refundPolicy, SESSION, workspace } from "./fixtures.js";

const ws = workspace("ai-sdk7-hook");
afterAll(() => ws.cleanup());

/** What AI SDK 7 hands the hook for one call. */
function call(toolName: string, input: Record<string, unknown>, tools?: Record<string, unknown>): AiSdk7ApprovalInfo {
  return {
    toolCall: { toolCallId: `call-${toolName}`, toolName, input },
    tools,
    toolsContext: {},
    runtimeContext: SESSION,
    messages: [],
  };
}

const review = (...args: string[]) => spawnSync(process.execPath, [cliPath, "review", ...args], { encoding: "utf8" });
const fromHost = { context: ({ runtimeContext }: AiSdk7ApprovalInfo) => runtimeContext as Record<string, unknown> };

describe("toolApproval (AI SDK 7's hook shape)", () => {
  it("allow is approved, block denied with the failing checks, hold asks the user with the reason", async () => {
    const hook = toolApproval(await ws.gate(refundPolicy()), fromHost);
    expect(await hook(call("refund_order", { order_id: 1001 }))).toEqual({ type: "approved" });
    const blocked = await hook(call("refund_order", { order_id: 1003 }));
    expect(blocked.type).toBe("denied");
    expect(blocked.reason).toMatch(/^blocked by tessera \(policy sha256:[0-9a-f]{64}\)\norder_id check 0 \(billing\)/);
    const held = await hook(call("cancel_order", { order_id: 1001 }));
    expect(held.type).toBe("user-approval");
    expect(held.reason).toContain("held by tessera");
  });

  it("the host's context wins over a model argument of the same name", async () => {
    const hook = toolApproval(await ws.gate(refundPolicy()), fromHost);
    expect((await hook(call("refund_order", { order_id: 1003, customer_id: "c-2" }))).type).toBe("denied");
  });

  it("a call Tessera allows still asks the tool's own needsApproval", async () => {
    const hook = toolApproval(await ws.gate(refundPolicy()), fromHost);
    const asked: unknown[] = [];
    const tools = {
      refund_order: {
        needsApproval: (input: unknown, options: { toolCallId: string }) => {
          asked.push([input, options.toolCallId]);
          return true;
        },
      },
    };
    expect(await hook(call("refund_order", { order_id: 1001 }, tools))).toEqual({ type: "user-approval" });
    expect(asked).toEqual([[{ order_id: 1001 }, "call-refund_order"]]);
    // a blocked call never reaches it
    expect((await hook(call("refund_order", { order_id: 1003 }, tools))).type).toBe("denied");
    expect(asked).toHaveLength(1);
  });

  it("with a review store, a hold is denied with its review id until approved, then approved once", async () => {
    const storeFile = join(ws.dir, "queue.db");
    const store = await openReviewStore(storeFile);
    try {
      const hook = toolApproval(await ws.gate(refundPolicy()), { ...fromHost, review: store });
      const first = await hook(call("cancel_order", { order_id: 1001 }));
      expect(first.type).toBe("denied");
      const id = /held for human review as (rv_[0-9a-f]{12})/.exec(first.reason ?? "")?.[1];
      expect(id, first.reason).toBeDefined();
      expect(review("approve", id!, "--store", storeFile, "--by", "tester").status).toBe(0);
      expect(await hook(call("cancel_order", { order_id: 1001 }))).toEqual({ type: "approved" });
      // the approval is spent: the same call again is held anew
      expect((await hook(call("cancel_order", { order_id: 1001 }))).reason).toContain("held for human review");
    } finally {
      await store.close();
    }
  });
});
