/**
 * `tessera-trust/langchain`: Tessera's verdicts on the tool calls of a LangChain.js 1.x agent
 * (`createAgent`), as a middleware with a `wrapToolCall` hook. `allow` runs the tool; `block` answers
 * with an error `ToolMessage` that carries the failing checks, so the model reads why; `hold`
 * interrupts the graph for human review (resume with `new Command({ resume: { approved: true } })`,
 * which needs a checkpointer) and runs the tool once if approved. With `review`, a hold is queued for
 * `tessera review` instead, and the identical call runs once after approval.
 * @module
 */
import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import type { Gate } from "../checks/engine.js";
import { createGuard, type GuardOptions } from "./guard.js";

export type { GuardOptions, HostContext, ReviewQueue } from "./guard.js";

/** The part of LangGraph's runtime the middleware reads: the host's `context` and `interrupt`. */
export interface LangChainRuntime<T = unknown> {
  readonly context?: T;
  interrupt?: (value: unknown) => unknown;
}

/** The value a hold interrupts with; resume with `{ approved: true }` to run the call. */
export interface TesseraHoldRequest {
  readonly type: "tessera_hold";
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly tool_call_id: string | null;
  readonly reason: string;
}

const refused = (request: { toolCall: { name: string; id?: string } }, content: string) =>
  new ToolMessage({
    content,
    tool_call_id: request.toolCall.id ?? "",
    name: request.toolCall.name,
    status: "error",
  });

/**
 * A middleware over `gate`; `context` gets LangGraph's runtime (read the host's `runtime.context`).
 * @example createAgent({ model, tools, middleware: [tesseraMiddleware(gate, { context: (rt) => rt.context.session })], checkpointer })
 */
export function tesseraMiddleware(gate: Gate, options: GuardOptions<LangChainRuntime> = {}) {
  const guard = createGuard<LangChainRuntime>(gate, options);
  return createMiddleware({
    name: "TesseraMiddleware",
    async wrapToolCall(request, handler) {
      const { name, args } = request.toolCall;
      const verdict = await guard.verdict(name, args ?? {}, request.runtime as LangChainRuntime);
      if (verdict.action === "run") return handler(request);
      if (verdict.action === "deny") return refused(request, verdict.reason);
      const interrupt = (request.runtime as LangChainRuntime).interrupt;
      if (interrupt === undefined)
        return refused(request, `${verdict.reason}\n(no human review: the graph cannot interrupt)`);
      const hold: TesseraHoldRequest = {
        type: "tessera_hold",
        tool: name,
        arguments: args ?? {},
        tool_call_id: request.toolCall.id ?? null,
        reason: verdict.reason,
      };
      // the node runs again on resume: the call was grounded again above and is still this hold
      const answer = interrupt(hold) as { approved?: unknown } | undefined;
      if (answer !== null && typeof answer === "object" && answer.approved === true) return handler(request);
      return refused(request, `${verdict.reason}\nthe reviewer did not approve this call`);
    },
  });
}
