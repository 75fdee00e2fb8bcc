// tessera-trust/ai-sdk with the real AI SDK 6 and its MockLanguageModelV3, scripted to call tools:
// allow runs once, block never runs and the model reads why, hold runs once after the user's
// approval, changed arguments are grounded afresh, an outage follows on_error, and the host's
// context wins over a model argument of the same name. The review-queue path is in review.test.ts.
import { generateText, type ModelMessage, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { guardTools } from "../../src/adapters/ai-sdk.js";
import { counter, outagePolicy, refundPolicy, SESSION, workspace } from "./fixtures.js";

const ws = workspace("ai-sdk");
afterAll(() => ws.cleanup());

/** A model that calls `tool` with `input` once per user turn, then answers with what the tool said. */
function scripted(toolName: string, inputs: Record<string, unknown>[]) {
  let n = 0;
  const seen: string[] = [];
  const model = new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const last = prompt[prompt.length - 1]!;
      if (last.role === "tool") {
        const said = JSON.stringify(last.content);
        seen.push(said);
        return {
          content: [{ type: "text", text: `the tool said ${said}` }],
          finishReason: { unified: "stop", raw: "stop" },
          usage: usage(),
          warnings: [],
        };
      }
      const input = inputs[Math.min(n, inputs.length - 1)]!;
      n += 1;
      return {
        content: [{ type: "tool-call", toolCallId: `call-${n}`, toolName, input: JSON.stringify(input) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage: usage(),
        warnings: [],
      };
    },
  });
  return { model, seen };
}

function usage() {
  return {
    inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: 1, text: 1, reasoning: 0 },
  };
}

async function tools(policy: string) {
  const gate = await ws.gate(policy);
  const c = counter();
  const input = z.object({ order_id: z.number(), customer_id: z.string().optional() });
  const guarded = guardTools(
    gate,
    {
      refund_order: tool({ description: "refund an order", inputSchema: input, execute: c.refund }),
      cancel_order: tool({ description: "cancel an order", inputSchema: input, execute: c.refund }),
    },
    { context: ({ experimental_context }) => experimental_context as Record<string, unknown> },
  );
  return { guarded, runs: c.runs };
}

describe("tessera-trust/ai-sdk", () => {
  it("an allowed call executes once", async () => {
    const { guarded, runs } = await tools(refundPolicy());
    const { model, seen } = scripted("refund_order", [{ order_id: 1001 }]);
    const r = await generateText({
      model,
      tools: guarded,
      prompt: "refund 1001",
      stopWhen: stepCountIs(2),
      experimental_context: SESSION,
    });
    expect(runs).toEqual([1001]);
    expect(seen[0]).toContain('"refunded":1001');
    expect(r.text).toContain("refunded");
  });

  it("a blocked call never executes, and the model reads the failing checks", async () => {
    const { guarded, runs } = await tools(refundPolicy());
    const { model, seen } = scripted("refund_order", [{ order_id: 1003 }]);
    await generateText({
      model,
      tools: guarded,
      prompt: "refund 1003",
      stopWhen: stepCountIs(2),
      experimental_context: SESSION,
    });
    expect(runs).toEqual([]);
    expect(seen[0]).toContain("blocked by tessera");
    expect(seen[0]).toContain("customer_id not_equal (ctx customer_id)");
  });

  it("the host's context wins over a model argument of the same name", async () => {
    const { guarded, runs } = await tools(refundPolicy());
    // order 1003 is c-2's; the model claims to be c-2, the session says c-1
    const { model, seen } = scripted("refund_order", [{ order_id: 1003, customer_id: "c-2" }]);
    await generateText({
      model,
      tools: guarded,
      prompt: "refund 1003",
      stopWhen: stepCountIs(2),
      experimental_context: SESSION,
    });
    expect(runs).toEqual([]);
    expect(seen[0]).toContain("not_equal");
  });

  it("a held call asks for approval, executes once after it, and changed arguments are grounded afresh", async () => {
    const { guarded, runs } = await tools(refundPolicy());
    const { model } = scripted("cancel_order", [{ order_id: 1001 }]);
    const first = await generateText({
      model,
      tools: guarded,
      prompt: "cancel 1001",
      stopWhen: stepCountIs(2),
      experimental_context: SESSION,
    });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    expect(request, JSON.stringify(first.content)).toBeDefined();
    expect(runs).toEqual([]);
    if (request?.type !== "tool-approval-request") throw new Error("no approval request");
    const messages: ModelMessage[] = [
      { role: "user", content: "cancel 1001" },
      ...first.response.messages,
      { role: "tool", content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: true }] },
    ];
    await generateText({ model, tools: guarded, messages, stopWhen: stepCountIs(1), experimental_context: SESSION });
    expect(runs).toEqual([1001]);
    // the same approval again: the call already ran, it does not run twice
    await generateText({ model, tools: guarded, messages, stopWhen: stepCountIs(1), experimental_context: SESSION });
    expect(runs).toEqual([1001]);
    // the approved call id with other arguments: grounded afresh, held again, not run
    const execute = guarded.cancel_order.execute!;
    const info = { toolCallId: request.toolCall.toolCallId, messages: [], experimental_context: SESSION };
    await expect(execute({ order_id: 1009 }, info)).rejects.toThrow(/held by tessera/);
    expect(runs).toEqual([1001]);
  });

  it("a held call the user denies never executes", async () => {
    const { guarded, runs } = await tools(refundPolicy());
    const { model, seen } = scripted("cancel_order", [{ order_id: 1001 }]);
    const first = await generateText({
      model,
      tools: guarded,
      prompt: "cancel",
      stopWhen: stepCountIs(2),
      experimental_context: SESSION,
    });
    const request = first.content.find((p) => p.type === "tool-approval-request");
    if (request?.type !== "tool-approval-request") throw new Error("no approval request");
    await generateText({
      model,
      tools: guarded,
      messages: [
        { role: "user", content: "cancel" },
        ...first.response.messages,
        {
          role: "tool",
          content: [{ type: "tool-approval-response", approvalId: request.approvalId, approved: false }],
        },
      ],
      stopWhen: stepCountIs(2),
      experimental_context: SESSION,
    });
    expect(runs).toEqual([]);
    expect(seen.length).toBeGreaterThan(0);
  });

  it("a Source outage follows on_error: block denies, hold asks; neither runs", async () => {
    const blocked = await tools(outagePolicy("block"));
    const a = scripted("refund_order", [{ order_id: 1001 }]);
    await generateText({
      model: a.model,
      tools: blocked.guarded,
      prompt: "x",
      stopWhen: stepCountIs(2),
      experimental_context: SESSION,
    });
    expect(blocked.runs).toEqual([]);
    expect(a.seen[0]).toContain("source_unreachable");

    const held = await tools(outagePolicy("hold"));
    const b = scripted("refund_order", [{ order_id: 1001 }]);
    const r = await generateText({
      model: b.model,
      tools: held.guarded,
      prompt: "x",
      stopWhen: stepCountIs(2),
      experimental_context: SESSION,
    });
    expect(r.content.some((p) => p.type === "tool-approval-request")).toBe(true);
    expect(held.runs).toEqual([]);
  });

  it("a gate that throws denies the call", async () => {
    const c = counter();
    const broken = {
      policy: {} as never,
      check: async () => Promise.reject(new Error("engine down")),
      close: async () => undefined,
    };
    const guarded = guardTools(broken, {
      refund_order: tool({ inputSchema: z.object({ order_id: z.number() }), execute: c.refund }),
    });
    const { model, seen } = scripted("refund_order", [{ order_id: 1001 }]);
    await generateText({ model, tools: guarded, prompt: "x", stopWhen: stepCountIs(2) });
    expect(c.runs).toEqual([]);
    expect(seen[0]).toContain("the check could not run: engine down");
  });
});
