// bench/adapters: what each framework adapter adds to a decision, over examples/refunds' SQLite
// policy and an allowed refund. The limit is `gate.check` called directly; each adapter runs its
// framework hooks for one call as the framework would (AI SDK: needsApproval then execute; OpenAI
// Agents: needsApproval then the input guardrail; LangChain: wrapToolCall), with a tool body that
// returns at once. No model and no agent loop: only the adapter's own cost is measured.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { guardTools } from "../dist/adapters/ai-sdk.js";
import { tesseraMiddleware } from "../dist/adapters/langchain.js";
import { guardAgentTools } from "../dist/adapters/openai-agents.js";
import { createGate, loadPolicy } from "../dist/index.js";
import { figure, printResult, timePerCall } from "./lib.mjs";

const root = join(fileURLToPath(new URL(".", import.meta.url)), "..");
const gate = createGate(await loadPolicy(join(root, "examples", "refunds", "policy.yaml")));
const args = { order_id: 1001, amount_cents: 4999 };
const session = { customer_id: "c-1" };
const body = async () => "refunded";

const direct = async () => {
  const d = await gate.check({ tool: "refund_order", arguments: args }, session);
  if (d.decision !== "allow") throw new Error(`expected allow, got ${d.decision}`);
};

const { refund_order } = guardTools(gate, { refund_order: { execute: body } }, { context: () => session });
let n = 0;
const aiSdk = async () => {
  const info = { toolCallId: `c${n++}`, messages: [] };
  if (await refund_order.needsApproval(args, info)) throw new Error("asked");
  await refund_order.execute(args, info);
};

const agentsTool = guardAgentTools(gate, { context: () => session }).tool("refund_order");
const runContext = { context: {}, isToolApproved: () => undefined };
const text = JSON.stringify(args);
const agents = async () => {
  const callId = `c${n++}`;
  if (await agentsTool.needsApproval(runContext, args, callId)) throw new Error("asked");
  const out = await agentsTool.inputGuardrails[0].run({
    context: runContext,
    toolCall: { callId, name: "refund_order", arguments: text },
  });
  if (out.behavior.type !== "allow") throw new Error("rejected");
  await body();
};

const middleware = tesseraMiddleware(gate, { context: () => session });
const langchain = async () => {
  const request = { toolCall: { id: `c${n++}`, name: "refund_order", args }, runtime: {} };
  await middleware.wrapToolCall(request, body);
};

// interleaved, so drift on a shared machine hits all alike
const samples = { direct: [], aiSdk: [], agents: [], langchain: [] };
const fns = { direct, aiSdk, agents, langchain };
for (let round = 0; round < 5; round++)
  for (const [name, fn] of Object.entries(fns))
    samples[name].push(await timePerCall(fn, { warmup: 200, samples: 9, batch: 200 }));
const best = (xs) => Math.min(...xs);
const limit = best(samples.direct);
const one = (name, label) =>
  figure({
    figure: label,
    value: best(samples[name]),
    unit: "ns",
    limitName: "gate.check directly",
    limitValue: limit,
    target: { ratio: 1.1 },
  });
const result = {
  name: "adapters",
  figures: [
    one("aiSdk", "tessera-trust/ai-sdk: needsApproval + execute per allowed call"),
    one("agents", "tessera-trust/openai-agents: needsApproval + input guardrail per allowed call"),
    one("langchain", "tessera-trust/langchain: wrapToolCall per allowed call"),
  ],
};
await gate.close();
printResult(result);
console.log(`RESULT ${JSON.stringify(result)}`);
