/**
 * `tessera-trust/ai-sdk`: Tessera's verdicts on the tools of an AI SDK 6 (`ai@6`) agent. Each tool
 * gets a `needsApproval` that grounds the call (true on `hold`, so the SDK asks its user) and an
 * `execute` that runs the tool only on `allow` or an approved hold; a `block` throws, so the model
 * reads the failing checks as the tool's error. With `review`, a hold is queued for `tessera review`
 * instead, and the identical call runs once after approval. For AI SDK 7 (`ai@7`), `toolApproval`
 * answers its `toolApproval` hook from the same guard.
 * @module
 */
import type { Gate } from "../checks/engine.js";
import { ApprovalMemo, createGuard, type GuardOptions, type Verdict } from "./guard.js";

export type { GuardOptions, HostContext, ReviewQueue } from "./guard.js";

/** What the SDK passes `needsApproval` and `execute` about a call; the host's context function gets it. */
export interface AiSdkCallInfo {
  readonly toolCallId: string;
  readonly messages: readonly unknown[];
  /** The `experimental_context` the host gave `generateText` / `streamText`. */
  readonly experimental_context?: unknown;
}

/** The shape of an AI SDK tool this adapter reads and wraps (`tool({...})`). */
interface ToolLike {
  execute?: (input: never, options: never) => unknown;
  needsApproval?: boolean | ((input: never, options: never) => boolean | PromiseLike<boolean>);
}

/** A tool call Tessera refused; the SDK reports its message to the model as the tool's error. */
export class TesseraDenied extends Error {
  override readonly name = "TesseraDenied";
}

/** Verdicts from `needsApproval`, used by the `execute` of the same call with the same input object. */
class Verdicts {
  private readonly byCall = new Map<string, { input: unknown; verdict: Verdict }>();
  put(id: string, input: unknown, verdict: Verdict): void {
    this.byCall.set(id, { input, verdict });
    if (this.byCall.size > 1024) this.byCall.delete(this.byCall.keys().next().value as string);
  }
  take(id: string, input: unknown): Verdict | undefined {
    const hit = this.byCall.get(id);
    this.byCall.delete(id);
    // the SDK hands both hooks the same parsed input; anything else is grounded again
    return hit !== undefined && hit.input === input ? hit.verdict : undefined;
  }
}

/**
 * Wrap every tool of `tools` (a tool the policy does not list follows `defaults.unlisted_tools`).
 * @example const tools = guardTools(gate, { refund_order }, { context: ({ experimental_context }) => session(experimental_context) });
 */
export function guardTools<TOOLS extends Record<string, unknown>>(
  gate: Gate,
  tools: TOOLS,
  options: GuardOptions<AiSdkCallInfo> = {},
): TOOLS {
  const guard = createGuard<AiSdkCallInfo>(gate, options);
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(tools)) {
    const original = value as ToolLike;
    const run = original.execute as ((input: unknown, options: unknown) => unknown) | undefined;
    if (run === undefined) {
      out[name] = value; // executed by the client, not here: nothing to guard on this side
      continue;
    }
    const verdicts = new Verdicts();
    const approvals = new ApprovalMemo();
    const own = original.needsApproval as
      | boolean
      | ((input: unknown, options: unknown) => boolean | PromiseLike<boolean>)
      | undefined;
    out[name] = {
      ...original,
      async needsApproval(input: Record<string, unknown>, info: AiSdkCallInfo) {
        const verdict = await guard.verdict(name, input, info);
        verdicts.put(info.toolCallId, input, verdict);
        if (verdict.action === "ask") {
          approvals.ask(info.toolCallId, guard.digest(input));
          return true;
        }
        // the tool's own approval still applies to a call Tessera lets run
        if (verdict.action === "run" && own !== undefined) return typeof own === "function" ? own(input, info) : own;
        return false;
      },
      async execute(input: Record<string, unknown>, info: AiSdkCallInfo) {
        let verdict = verdicts.take(info.toolCallId, input);
        // a hold the user approved is grounded again: it runs if it is still a hold (or now allowed)
        if (verdict === undefined || verdict.action === "ask") verdict = await guard.verdict(name, input, info);
        if (verdict.action === "run") return run(input, info);
        if (verdict.action === "ask" && approvals.use(info.toolCallId, guard.digest(input))) return run(input, info);
        throw new TesseraDenied(verdict.reason);
      },
    };
  }
  return out as TOOLS;
}

/** What AI SDK 7 passes a `toolApproval` function about a call; the host's context function gets it. */
export interface AiSdk7ApprovalInfo {
  readonly toolCall: { readonly toolCallId: string; readonly toolName: string; readonly input: unknown };
  readonly tools?: Readonly<Record<string, unknown>> | undefined;
  /** The `toolsContext` the host gave `generateText` / `streamText`, by tool name. */
  readonly toolsContext?: unknown;
  /** The `runtimeContext` the host gave `generateText` / `streamText` / the agent. */
  readonly runtimeContext?: unknown;
  readonly messages: readonly unknown[];
}

/** AI SDK 7's approval statuses this adapter answers with (its `ToolApprovalStatus`). */
export type AiSdk7ApprovalStatus =
  | { readonly type: "approved"; readonly reason?: string }
  | { readonly type: "denied"; readonly reason: string }
  | { readonly type: "user-approval"; readonly reason?: string };

/**
 * AI SDK 7's `toolApproval` (the function form, called for every tool call): `allow` → approved,
 * `block` → denied with the failing checks as the reason the model reads, `hold` → user approval
 * with the reason shown to the approver (with `review`: denied with the review id until
 * `tessera review approve`, then the identical call is approved once). The SDK calls it again for
 * an approval replayed from the history, so a call that is now blocked stays denied.
 * @example const r = await generateText({ model, tools, toolApproval: toolApproval(gate, { context: ({ runtimeContext }) => session(runtimeContext) }) });
 */
export function toolApproval(
  gate: Gate,
  options: GuardOptions<AiSdk7ApprovalInfo> = {},
): (info: AiSdk7ApprovalInfo) => Promise<AiSdk7ApprovalStatus> {
  const guard = createGuard<AiSdk7ApprovalInfo>(gate, options);
  return async (info) => {
    const { toolName, toolCallId, input } = info.toolCall;
    const verdict = await guard.verdict(toolName, input as Record<string, unknown>, info);
    if (verdict.action === "deny") return { type: "denied", reason: verdict.reason };
    if (verdict.action === "ask") return { type: "user-approval", reason: verdict.reason };
    // the function form replaces the tool's own `needsApproval`; it still applies to a call Tessera lets run
    const own = (info.tools?.[toolName] as ToolLike | undefined)?.needsApproval as
      | boolean
      | ((input: unknown, options: unknown) => boolean | PromiseLike<boolean>)
      | undefined;
    const context = (info.toolsContext as Record<string, unknown> | undefined)?.[toolName];
    const asks = typeof own === "function" ? await own(input, { toolCallId, messages: info.messages, context }) : own;
    return asks === true ? { type: "user-approval" } : { type: "approved" };
  };
}
