// tessera-trust/langchain with the real LangChain.js 1.x `createAgent` and a scripted chat model on
// @langchain/core's FakeStreamingChatModel (no network): allow runs once, block never runs and the
// model reads why, hold interrupts and runs once after `Command({ resume: { approved: true } })`,
// an outage follows on_error, and the host's context wins over a model argument of the same name.
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { Command, MemorySaver } from "@langchain/langgraph";
import { createAgent, tool } from "langchain";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { tesseraMiddleware } from "../../src/adapters/langchain.js";
import { counter, outagePolicy, refundPolicy, SESSION, workspace } from "./fixtures.js";

const ws = workspace("langchain");
afterAll(() => ws.cleanup());

/** Calls `toolName` with each input in turn; after a tool result, answers with what the tool said. */
class Scripted extends FakeStreamingChatModel {
  n = 0;
  readonly seen: string[] = [];
  constructor(
    private readonly toolName: string,
    private readonly inputs: Record<string, unknown>[],
  ) {
    super({});
  }
  override bindTools() {
    return this as never;
  }
  override async _generate(messages: BaseMessage[]) {
    const last = messages[messages.length - 1]!;
    if (last.type === "tool") {
      const said = typeof last.content === "string" ? last.content : JSON.stringify(last.content);
      this.seen.push(said);
      return { generations: [{ text: "", message: new AIMessage({ content: `the tool said ${said}` }) }] };
    }
    const args = this.inputs[Math.min(this.n, this.inputs.length - 1)]!;
    this.n += 1;
    const call = { id: `call-${this.n}`, name: this.toolName, args, type: "tool_call" as const };
    return { generations: [{ text: "", message: new AIMessage({ content: "", tool_calls: [call] }) }] };
  }
}

async function agent(policy: string, toolName: string, inputs: Record<string, unknown>[]) {
  const gate = await ws.gate(policy);
  const c = counter();
  const schema = z.object({ order_id: z.number(), customer_id: z.string().optional() });
  const make = (name: string) =>
    tool(async (input) => JSON.stringify(await c.refund(input)), { name, description: name, schema });
  const model = new Scripted(toolName, inputs);
  const a = createAgent({
    model,
    tools: [make("refund_order"), make("cancel_order")],
    middleware: [
      tesseraMiddleware(gate, { context: (rt) => (rt.context as { session: Record<string, unknown> }).session }),
    ],
    checkpointer: new MemorySaver(),
  });
  return { a, model, runs: c.runs };
}

const config = (thread: string) => ({ configurable: { thread_id: thread }, context: { session: SESSION } });

describe("tessera-trust/langchain", () => {
  it("an allowed call executes once", async () => {
    const { a, model, runs } = await agent(refundPolicy(), "refund_order", [{ order_id: 1001 }]);
    await a.invoke({ messages: [{ role: "user", content: "refund 1001" }] }, config("t1"));
    expect(runs).toEqual([1001]);
    expect(model.seen[0]).toContain("refunded");
  });

  it("a blocked call never executes, and the model reads the failing checks", async () => {
    const { a, model, runs } = await agent(refundPolicy(), "refund_order", [{ order_id: 1003 }]);
    await a.invoke({ messages: [{ role: "user", content: "refund 1003" }] }, config("t2"));
    expect(runs).toEqual([]);
    expect(model.seen[0]).toContain("blocked by tessera");
    expect(model.seen[0]).toContain("customer_id not_equal (ctx customer_id)");
  });

  it("the host's context wins over a model argument of the same name", async () => {
    const { a, model, runs } = await agent(refundPolicy(), "refund_order", [{ order_id: 1003, customer_id: "c-2" }]);
    await a.invoke({ messages: [{ role: "user", content: "refund 1003" }] }, config("t3"));
    expect(runs).toEqual([]);
    expect(model.seen[0]).toContain("not_equal");
  });

  it("a held call interrupts for review and executes once after approval", async () => {
    const { a, model, runs } = await agent(refundPolicy(), "cancel_order", [{ order_id: 1001 }]);
    const first = (await a.invoke({ messages: [{ role: "user", content: "cancel 1001" }] }, config("t4"))) as {
      __interrupt__?: { value: { type: string; tool: string; reason: string } }[];
    };
    expect(first.__interrupt__?.[0]?.value).toMatchObject({ type: "tessera_hold", tool: "cancel_order" });
    expect(first.__interrupt__?.[0]?.value.reason).toContain("held by tessera");
    expect(runs).toEqual([]);
    await a.invoke(new Command({ resume: { approved: true } }), config("t4"));
    expect(runs).toEqual([1001]);
    expect(model.seen[0]).toContain("refunded");
    // resuming again does not run the call a second time
    await a.invoke(new Command({ resume: { approved: true } }), config("t4"));
    expect(runs).toEqual([1001]);
  });

  it("a held call the reviewer rejects never executes, and the model reads why", async () => {
    const { a, model, runs } = await agent(refundPolicy(), "cancel_order", [{ order_id: 1001 }]);
    await a.invoke({ messages: [{ role: "user", content: "cancel 1001" }] }, config("t5"));
    await a.invoke(new Command({ resume: { approved: false } }), config("t5"));
    expect(runs).toEqual([]);
    expect(model.seen[0]).toContain("the reviewer did not approve this call");
  });

  it("a Source outage follows on_error: block answers an error, hold interrupts; neither runs", async () => {
    const blocked = await agent(outagePolicy("block"), "refund_order", [{ order_id: 1001 }]);
    await blocked.a.invoke({ messages: [{ role: "user", content: "x" }] }, config("t6"));
    expect(blocked.runs).toEqual([]);
    expect(blocked.model.seen[0]).toContain("source_unreachable");
    const held = await agent(outagePolicy("hold"), "refund_order", [{ order_id: 1001 }]);
    const r = (await held.a.invoke({ messages: [{ role: "user", content: "x" }] }, config("t7"))) as {
      __interrupt__?: unknown[];
    };
    expect(r.__interrupt__).toHaveLength(1);
    expect(held.runs).toEqual([]);
  });
});
