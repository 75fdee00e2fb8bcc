// tessera-trust/openai-agents with the real OpenAI Agents SDK and a scripted Model (the SDK ships
// no mock model; this implements its Model interface, no network): allow runs once, block never
// runs and the model reads why, hold runs once after the host approves the interruption, changed
// arguments are grounded afresh, an outage follows on_error, and the host's context wins.
import { Agent, type Model, type ModelRequest, type ModelResponse, Runner, tool, Usage } from "@openai/agents";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { guardAgentTools } from "../../src/adapters/openai-agents.js";
import { counter, outagePolicy, refundPolicy, SESSION, workspace } from "./fixtures.js";

const ws = workspace("openai-agents");
afterAll(() => ws.cleanup());

/** Calls `toolName` with each input in turn; after a tool result, answers with what the tool said. */
function scripted(toolName: string, inputs: Record<string, unknown>[]) {
  let n = 0;
  const seen: string[] = [];
  const model: Model = {
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      const items = Array.isArray(request.input) ? request.input : [];
      const last = items[items.length - 1] as { type?: string; output?: unknown } | undefined;
      if (last?.type === "function_call_result") {
        const said = JSON.stringify(last.output);
        seen.push(said);
        return {
          usage: new Usage(),
          output: [
            {
              type: "message",
              role: "assistant",
              status: "completed",
              content: [{ type: "output_text", text: `the tool said ${said}` }],
            },
          ],
        };
      }
      const input = inputs[Math.min(n, inputs.length - 1)]!;
      n += 1;
      return {
        usage: new Usage(),
        output: [
          {
            type: "function_call",
            callId: `call-${n}`,
            name: toolName,
            arguments: JSON.stringify(input),
            status: "completed",
          },
        ],
      };
    },
    // biome-ignore lint/correctness/useYield: the runs here never stream
    async *getStreamedResponse() {
      throw new Error("not streamed in these tests");
    },
  };
  return { model, seen };
}

async function agent(policy: string, toolName: string, inputs: Record<string, unknown>[]) {
  const gate = await ws.gate(policy);
  const guard = guardAgentTools(gate, {
    context: (rc) => (rc.context as { session: Record<string, unknown> }).session,
  });
  const c = counter();
  const parameters = z.object({ order_id: z.number(), customer_id: z.string().nullable() });
  const make = (name: string) =>
    tool({ name, description: name, parameters, execute: (input) => c.refund(input), ...guard.tool(name) });
  const { model, seen } = scripted(toolName, inputs);
  const a = new Agent({
    name: "refunds",
    instructions: "refund orders",
    model,
    tools: [make("refund_order"), make("cancel_order")],
  });
  return { a, runs: c.runs, seen, runner: new Runner({ tracingDisabled: true }) };
}

const ctx = { session: SESSION };

describe("tessera-trust/openai-agents", () => {
  it("an allowed call executes once", async () => {
    const { a, runs, seen, runner } = await agent(refundPolicy(), "refund_order", [
      { order_id: 1001, customer_id: null },
    ]);
    await runner.run(a, "refund 1001", { context: ctx, maxTurns: 3 });
    expect(runs).toEqual([1001]);
    expect(seen[0]).toContain("refunded");
  });

  it("a blocked call never executes, and the model reads the failing checks", async () => {
    const { a, runs, seen, runner } = await agent(refundPolicy(), "refund_order", [
      { order_id: 1003, customer_id: null },
    ]);
    await runner.run(a, "refund 1003", { context: ctx, maxTurns: 3 });
    expect(runs).toEqual([]);
    expect(seen[0]).toContain("blocked by tessera");
    expect(seen[0]).toContain("customer_id not_equal (ctx customer_id)");
  });

  it("the host's context wins over a model argument of the same name", async () => {
    const { a, runs, seen, runner } = await agent(refundPolicy(), "refund_order", [
      { order_id: 1003, customer_id: "c-2" },
    ]);
    await runner.run(a, "refund 1003", { context: ctx, maxTurns: 3 });
    expect(runs).toEqual([]);
    expect(seen[0]).toContain("not_equal");
  });

  it("a held call interrupts, executes once after approval, and changed arguments are grounded afresh", async () => {
    const { a, runs, seen, runner } = await agent(refundPolicy(), "cancel_order", [
      { order_id: 1001, customer_id: null },
    ]);
    const first = await runner.run(a, "cancel 1001", { context: ctx, maxTurns: 3 });
    expect(first.interruptions).toHaveLength(1);
    expect(runs).toEqual([]);
    first.state.approve(first.interruptions[0]!);
    const second = await runner.run(a, first.state, { maxTurns: 3 });
    expect(runs).toEqual([1001]);
    expect(seen[0]).toContain("refunded");
    expect(second.interruptions ?? []).toHaveLength(0);

    // the approved call id again, with other arguments: grounded afresh and held, so not run
    const cancel = a.tools.find((t) => t.name === "cancel_order") as unknown as {
      inputGuardrails: { run: (d: unknown) => Promise<{ behavior: { type: string } }> }[];
    };
    const approved = { context: ctx, isToolApproved: () => true };
    const call = (order: number) => ({
      callId: "call-1",
      name: "cancel_order",
      arguments: JSON.stringify({ order_id: order, customer_id: null }),
    });
    const out = await cancel.inputGuardrails[0]!.run({ context: approved, toolCall: call(1009) });
    // and the approved arguments a second time: the approval was used once
    const again = await cancel.inputGuardrails[0]!.run({ context: approved, toolCall: call(1001) });
    expect(again.behavior.type).toBe("rejectContent");
    expect(out.behavior.type).toBe("rejectContent");
  });

  it("a held call the host rejects never executes", async () => {
    const { a, runs, runner } = await agent(refundPolicy(), "cancel_order", [{ order_id: 1001, customer_id: null }]);
    const first = await runner.run(a, "cancel 1001", { context: ctx, maxTurns: 3 });
    first.state.reject(first.interruptions[0]!);
    await runner.run(a, first.state, { maxTurns: 3 });
    expect(runs).toEqual([]);
  });

  it("a Source outage follows on_error: block rejects, hold interrupts; neither runs", async () => {
    const blocked = await agent(outagePolicy("block"), "refund_order", [{ order_id: 1001, customer_id: null }]);
    await blocked.runner.run(blocked.a, "x", { context: ctx, maxTurns: 3 });
    expect(blocked.runs).toEqual([]);
    expect(blocked.seen[0]).toContain("source_unreachable");
    const held = await agent(outagePolicy("hold"), "refund_order", [{ order_id: 1001, customer_id: null }]);
    const r = await held.runner.run(held.a, "x", { context: ctx, maxTurns: 3 });
    expect(r.interruptions).toHaveLength(1);
    expect(held.runs).toEqual([]);
  });
});
