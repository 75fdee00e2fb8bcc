// An AI SDK 6 agent whose refund tools are guarded by tessera-trust/ai-sdk. The model is the SDK's
// own MockLanguageModelV3, scripted to call one tool per turn (no network). Run: node examples/agents/ai-sdk.mjs
import { generateText, stepCountIs, tool } from "ai";
import { MockLanguageModelV3 } from "ai/test";
import { guardTools } from "tessera-trust/ai-sdk";
import { z } from "zod";
import { heldId, setup, TURNS } from "./shared.mjs";

const usage = { inputTokens: { total: 1, noCache: 1 }, outputTokens: { total: 1, text: 1 } };

/** A model that calls `turn.tool` once, then repeats what the tool answered. */
function model(turn) {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const last = prompt.at(-1);
      if (last.role === "tool") {
        const part = last.content[0];
        const said = part.output.type === "error-text" ? part.output.value : JSON.stringify(part.output.value);
        return {
          content: [{ type: "text", text: said }],
          finishReason: { unified: "stop", raw: "stop" },
          usage,
          warnings: [],
        };
      }
      const call = { type: "tool-call", toolCallId: "call-1", toolName: turn.tool, input: JSON.stringify(turn.args) };
      return { content: [call], finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage, warnings: [] };
    },
  });
}

const host = await setup();
const order = z.object({ order_id: z.number(), amount_cents: z.number().optional() });
const tools = guardTools(
  host.gate,
  {
    refund_order: tool({ description: "refund an order", inputSchema: order, execute: host.refund }),
    cancel_order: tool({ description: "cancel an order", inputSchema: order, execute: host.cancel }),
  },
  { context: ({ experimental_context }) => experimental_context, review: host.queue },
);
const turn = async (t) =>
  (
    await generateText({
      model: model(t),
      tools,
      prompt: "help",
      stopWhen: stepCountIs(2),
      experimental_context: host.session,
    })
  ).text;

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
