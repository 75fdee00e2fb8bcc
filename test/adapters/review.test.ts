// Holds without a gateway: an adapter given a review store records a held call with its checks,
// bound as the gateway binds it (tool, arguments digest, policy digest, context digest; once;
// expiring), and the same `tessera review` commands decide it. Through the AI SDK adapter and
// the built CLI; the other adapters share src/adapters/guard.ts.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, expect, it } from "vitest";
import { z } from "zod";
import { guardTools } from "../../src/adapters/ai-sdk.js";
import { openReviewStore } from "../../src/review/index.js";
import { cliPath } from "../mcp/helpers.js";
import { counter, refundPolicy, SESSION, workspace } from "./fixtures.js";

const ws = workspace("review");
afterAll(() => ws.cleanup());

function model(inputs: Record<string, unknown>[], seen: string[]) {
  let n = 0;
  const usage = {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const last = prompt[prompt.length - 1]!;
      if (last.role === "tool") {
        seen.push(JSON.stringify(last.content));
        return {
          content: [{ type: "text", text: "ok" }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      }
      const input = inputs[n++]!;
      return {
        content: [
          { type: "tool-call", toolCallId: `call-${n}`, toolName: "cancel_order", input: JSON.stringify(input) },
        ],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      };
    },
  });
}

const review = (...args: string[]) => spawnSync(process.execPath, [cliPath, "review", ...args], { encoding: "utf8" });

it("a held call waits in the queue, runs once after `tessera review approve`, and other arguments are held afresh", async () => {
  const storeFile = join(ws.dir, "queue.db");
  const store = await openReviewStore(storeFile);
  const gate = await ws.gate(refundPolicy());
  const c = counter();
  const tools = guardTools(
    gate,
    { cancel_order: tool({ inputSchema: z.object({ order_id: z.number() }), execute: c.refund }) },
    { context: () => SESSION, review: store },
  );
  const seen: string[] = [];
  const ask = (order: number) =>
    generateText({ model: model([{ order_id: order }], seen), tools, prompt: "cancel", stopWhen: stepCountIs(2) });

  await ask(1001);
  expect(c.runs).toEqual([]);
  const id = /held for human review as (rv_[0-9a-f]{12})/.exec(seen[0]!)?.[1];
  expect(id, seen[0]).toBeDefined();
  const listed = JSON.parse(review("list", "--store", storeFile, "--json").stdout) as { id: string; tool: string }[];
  expect(listed.map((r) => [r.id, r.tool])).toEqual([[id, "cancel_order"]]);

  expect(review("approve", id!, "--store", storeFile, "--by", "tester").status).toBe(0);
  await ask(1001);
  expect(c.runs).toEqual([1001]);
  // the approval was used: the same call again is held anew
  await ask(1001);
  expect(c.runs).toEqual([1001]);
  expect(seen[2]).toContain("held for human review");
  // other arguments are never covered by that approval
  await ask(1009);
  expect(c.runs).toEqual([1001]);
  expect(seen[3]).toContain("held for human review");
  await store.close();
});

it("a call denied with `tessera review deny --reason` is refused with the reviewer's reason, as through the gateway", async () => {
  const storeFile = join(ws.dir, "denied.db");
  const store = await openReviewStore(storeFile);
  const gate = await ws.gate(refundPolicy());
  const c = counter();
  const tools = guardTools(
    gate,
    { cancel_order: tool({ inputSchema: z.object({ order_id: z.number() }), execute: c.refund }) },
    { context: () => SESSION, review: store },
  );
  const seen: string[] = [];
  const ask = (order: number) =>
    generateText({ model: model([{ order_id: order }], seen), tools, prompt: "cancel", stopWhen: stepCountIs(2) });

  await ask(1001);
  const id = /held for human review as (rv_[0-9a-f]{12})/.exec(seen[0]!)?.[1];
  expect(id, seen[0]).toBeDefined();
  const denied = review(
    "deny",
    id!,
    "--store",
    storeFile,
    "--by",
    "tester",
    "--reason",
    "this customer has a chargeback open",
  );
  expect(denied.status, denied.stderr).toBe(0);
  await ask(1001);
  expect(c.runs).toEqual([]);
  expect(seen[1]).toContain("denied by tester: this customer has a chargeback open");
  expect(seen[1]).toContain(id);
  // the denial is of exactly that call: other arguments are held for review
  await ask(1009);
  expect(seen[2]).toContain("held for human review");
  await store.close();
});
