/**
 * Claude Code's PreToolUse hook protocol: the hook reads `{hook_event_name, tool_name, tool_input, …}`
 * on stdin and answers on stdout with `hookSpecificOutput.permissionDecision` (`allow`, `deny`,
 * `ask`) and exit 0. Claude Code reads that JSON only on exit 0, treats exit 2 as a block with stderr
 * as the reason, and lets the call run on any other exit: so an error exits 2, never 1.
 * @module
 */
import { errorLine, type HookCall, HookInputError, type HookVerdict, isObject } from "./verdict.js";

/** The call a PreToolUse input names; anything else is a malformed input. */
export function claudeCodeCall(input: unknown): HookCall {
  if (!isObject(input)) throw new HookInputError("the hook input is not a json object");
  const event = input.hook_event_name;
  if (event !== undefined && event !== "PreToolUse")
    throw new HookInputError(`hook_event_name: expected "PreToolUse", got ${JSON.stringify(event)}`);
  if (typeof input.tool_name !== "string" || input.tool_name === "")
    throw new HookInputError("tool_name: expected a non-empty string");
  if (!isObject(input.tool_input)) throw new HookInputError("tool_input: expected an object");
  return { tool: input.tool_name, arguments: input.tool_input };
}

/** What the hook prints and how it exits. */
export interface HookAnswer {
  readonly stdout: string;
  readonly stderr: string;
  readonly exit: number;
}

const DECISION = { allow: "allow", block: "deny", hold: "ask" } as const;

/** The answer Claude Code reads: a permission decision (exit 0), or a blocking error (exit 2). */
export function claudeCodeAnswer(v: HookVerdict): HookAnswer {
  if (v.decision === "error") return { stdout: "", stderr: errorLine(v), exit: 2 };
  const out: Record<string, string> = { hookEventName: "PreToolUse", permissionDecision: DECISION[v.decision] };
  if (v.reason !== "") out.permissionDecisionReason = v.reason;
  return { stdout: `${JSON.stringify({ hookSpecificOutput: out })}\n`, stderr: "", exit: 0 };
}
