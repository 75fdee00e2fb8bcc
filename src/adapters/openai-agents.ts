/**
 * `tessera-trust/openai-agents`: Tessera's verdicts on the function tools of an OpenAI Agents SDK
 * (`@openai/agents`) agent. `guard.tool(name)` gives the options to spread into `tool({...})`: a
 * `needsApproval` that is true on `hold` (the run stops with an interruption for the host's
 * approval) and a tool input guardrail that rejects on `block`, so the model reads the failing
 * checks as the tool's output, and lets an approved hold run once. With `review`, a hold is queued
 * for `tessera review` instead. Nothing here imports the framework: the shapes are its documented ones.
 * @module
 */
import type { Gate } from "../checks/engine.js";
import { ApprovalMemo, createGuard, type GuardOptions, type Verdict } from "./guard.js";

export type { GuardOptions, HostContext, ReviewQueue } from "./guard.js";

/** The part of the SDK's `RunContext` the adapter reads; `context` is what the host passed `run()`. */
export interface AgentsRunContext<T = unknown> {
  readonly context: T;
  isToolApproved(approval: { toolName: string; callId: string }): boolean | undefined;
}

/** A function call as the SDK hands it to a tool input guardrail. */
interface FunctionCallItem {
  readonly callId: string;
  readonly name: string;
  readonly arguments: string;
}

/** A tool input guardrail, as `defineToolInputGuardrail` makes one. */
export interface TesseraInputGuardrail {
  readonly type: "tool_input";
  readonly name: string;
  run(data: { context: AgentsRunContext; toolCall: FunctionCallItem }): Promise<{
    behavior: { type: "allow" } | { type: "rejectContent"; message: string };
    outputInfo?: unknown;
  }>;
}

/** What to spread into `tool({...})`. */
export interface TesseraToolOptions {
  needsApproval(runContext: AgentsRunContext, input: unknown, callId?: string): Promise<boolean>;
  readonly inputGuardrails: TesseraInputGuardrail[];
}

/** A guard for one agent's tools. */
export interface AgentsGuard {
  /** The `needsApproval` and `inputGuardrails` of the tool `name` (as the policy and the model name it). */
  tool(name: string): TesseraToolOptions;
}

const parseArgs = (text: string): Record<string, unknown> | null => {
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
};

/**
 * A guard over `gate`; `context` gets the SDK's `RunContext` (read the host's own `runContext.context`).
 * @example const guard = guardAgentTools(gate, { context: (rc) => rc.context.session }); tool({ name: "refund_order", ..., ...guard.tool("refund_order") })
 */
export function guardAgentTools(gate: Gate, options: GuardOptions<AgentsRunContext> = {}): AgentsGuard {
  const guard = createGuard<AgentsRunContext>(gate, options);
  return {
    tool(name) {
      // needsApproval's verdict, memoized per call id and arguments for the guardrail that follows it
      const verdicts = new Map<string, { text: string; verdict: Verdict }>();
      const approvals = new ApprovalMemo();
      const remember = (id: string, text: string, verdict: Verdict) => {
        verdicts.set(id, { text, verdict });
        if (verdicts.size > 1024) verdicts.delete(verdicts.keys().next().value as string);
      };
      return {
        async needsApproval(runContext, input, callId) {
          const args = (typeof input === "string" ? parseArgs(input) : (input as Record<string, unknown>)) ?? {};
          const verdict = await guard.verdict(name, args, runContext);
          if (callId === undefined) return verdict.action !== "run"; // nowhere to remember it: ask
          remember(callId, JSON.stringify(args), verdict);
          if (verdict.action === "ask") approvals.ask(callId, guard.digest(args));
          return verdict.action === "ask";
        },
        inputGuardrails: [
          {
            type: "tool_input",
            name: "tessera",
            async run({ context, toolCall }) {
              const args = parseArgs(toolCall.arguments);
              if (args === null)
                return {
                  behavior: {
                    type: "rejectContent",
                    message: "blocked by tessera: the arguments are not a json object",
                  },
                };
              const hit = verdicts.get(toolCall.callId);
              // the same arguments as needsApproval saw (as the SDK serializes them); anything else is grounded again
              let verdict = hit !== undefined && hit.text === toolCall.arguments ? hit.verdict : undefined;
              const approved = context.isToolApproved({ toolName: toolCall.name, callId: toolCall.callId });
              // after the host's approval the call is grounded again: it runs if it is still a hold, or now allowed
              if (verdict === undefined || approved === true) verdict = await guard.verdict(name, args, context);
              if (verdict.action === "run") return { behavior: { type: "allow" }, outputInfo: verdict.decision };
              if (verdict.action === "deny") return { behavior: { type: "rejectContent", message: verdict.reason } };
              // a hold: before the approval is asked, let the SDK ask; after it, run once for exactly these arguments
              if (approved === undefined && hit !== undefined) return { behavior: { type: "allow" } };
              if (approved === true && approvals.use(toolCall.callId, guard.digest(args)))
                return { behavior: { type: "allow" } };
              return { behavior: { type: "rejectContent", message: verdict.reason } };
            },
          },
        ],
      };
    },
  };
}
