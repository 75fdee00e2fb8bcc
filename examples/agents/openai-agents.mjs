// An OpenAI Agents SDK agent whose refund tools are guarded by tessera-trust/openai-agents. The
// SDK ships no mock model, so this one implements its Model interface, scripted to call one tool
// per turn (no network). Run: node examples/agents/openai-agents.mjs
import { Agent, Runner, tool, Usage } from "@openai/agents";
import { guardAgentTools } from "tessera-trust/openai-agents";
import { z } from "zod";
import { heldId, setup, TURNS } from "./shared.mjs";

/** A model that calls `turn.tool` once, then repeats what the tool answered. */
function model(turn) {
  return {
    async getResponse(request) {
      const last = Array.isArray(request.input) ? request.input.at(-1) : undefined;
      if (last?.type === "function_call_result") {
        const said = typeof last.output === "string" ? last.output : (last.output?.text ?? JSON.stringify(last.output));
        const text = { type: "output_text", text: said };
        return {
          usage: new Usage(),
          output: [{ type: "message", role: "assistant", status: "completed", content: [text] }],
        };
      }
      // the SDK's strict schemas make every parameter required: an absent amount is null
      const args = JSON.stringify({ amount_cents: null, ...turn.args });
      const call = { type: "function_call", callId: "call-1", name: turn.tool, arguments: args, status: "completed" };
      return { usage: new Usage(), output: [call] };
    },
    async *getStreamedResponse() {
      yield* [];
      throw new Error("this example does not stream");
    },
  };
}

const host = await setup();
const guard = guardAgentTools(host.gate, { context: (runContext) => runContext.context.session, review: host.queue });
const parameters = z.object({ order_id: z.number(), amount_cents: z.number().nullable() });
const tools = [
  tool({
    name: "refund_order",
    description: "refund an order",
    parameters,
    execute: host.refund,
    ...guard.tool("refund_order"),
  }),
  tool({
    name: "cancel_order",
    description: "cancel an order",
    parameters,
    execute: host.cancel,
    ...guard.tool("cancel_order"),
  }),
];
const runner = new Runner({ tracingDisabled: true });
const turn = async (t) => {
  const agent = new Agent({ name: "refunds", instructions: "help", model: model(t), tools });
  const r = await runner.run(agent, `${t.tool} ${t.args.order_id}`, {
    context: { session: host.session },
    maxTurns: 3,
  });
  return String(r.finalOutput ?? "");
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
