// A LangChain.js 1.x agent (createAgent) whose refund tools are guarded by tessera-trust/langchain.
// The model is @langchain/core's FakeStreamingChatModel, scripted to call one tool per turn (no
// network). Run: node examples/agents/langchain.mjs
import { AIMessage } from "@langchain/core/messages";
import { FakeStreamingChatModel } from "@langchain/core/utils/testing";
import { createAgent, tool } from "langchain";
import { tesseraMiddleware } from "tessera-trust/langchain";
import { z } from "zod";
import { heldId, setup, TURNS } from "./shared.mjs";

/** A model that calls `turn.tool` once, then repeats what the tool answered. */
class Scripted extends FakeStreamingChatModel {
  constructor(turn) {
    super({});
    this.turn = turn;
  }
  bindTools() {
    return this;
  }
  async _generate(messages) {
    const last = messages.at(-1);
    const message =
      last.type === "tool"
        ? new AIMessage({ content: String(last.content) })
        : new AIMessage({
            content: "",
            tool_calls: [{ id: "call-1", name: this.turn.tool, args: this.turn.args, type: "tool_call" }],
          });
    return { generations: [{ text: "", message }] };
  }
}

const host = await setup();
const order = z.object({ order_id: z.number(), amount_cents: z.number().optional() });
const tools = [
  tool(host.refund, { name: "refund_order", description: "refund an order", schema: order }),
  tool(host.cancel, { name: "cancel_order", description: "cancel an order", schema: order }),
];
const middleware = [
  tesseraMiddleware(host.gate, { context: (runtime) => runtime.context.session, review: host.queue }),
];
const turn = async (t) => {
  const agent = createAgent({ model: new Scripted(t), tools, middleware });
  const r = await agent.invoke(
    { messages: [{ role: "user", content: "help" }] },
    { context: { session: host.session } },
  );
  return String(r.messages.at(-1).content);
};

for (const t of TURNS) {
  const said = await turn(t);
  console.log(`${t.tool} ${t.args.order_id}: ${said.split("\n")[0]}`);
  const id = heldId(said);
  if (id !== null) {
    await host.approve(id);
    console.log(`approved ${id} (tessera review approve ${id} --store ${host.storeFile})`);
    console.log(`${t.tool} ${t.args.order_id} again: ${(await turn(t)).split("\n")[0]}`);
  }
}
console.log(`ran: ${host.ran.join(", ")}`);
await host.close();
