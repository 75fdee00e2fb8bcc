/**
 * GitHub Copilot's `preToolUse` hook protocol (Copilot coding agent and Copilot CLI, `.github/hooks/*.json`):
 * the hook reads `{timestamp, cwd, toolName, toolArgs}` on stdin, `toolArgs` being the arguments
 * as a JSON string (an object is accepted too), and answers on stdout with `{permissionDecision,
 * permissionDecisionReason}`. Only `deny` is honoured everywhere, and no exit code is documented
 * to block: so every answer exits 0, a hold is denied (the coding agent has no one to ask), and an
 * error is denied in JSON too.
 * @module
 */
import { TesseraError } from "../platform/errors.js";
import type { HookAnswer } from "./claude-code.js";
import { errorLine, type HookCall, HookInputError, type HookVerdict, isObject } from "./verdict.js";

/** The call a preToolUse input names; anything else is a malformed input. */
export function copilotCall(input: unknown, parseArgs: (text: string) => unknown): HookCall {
  if (!isObject(input)) throw new HookInputError("the hook input is not a json object");
  if (typeof input.toolName !== "string" || input.toolName === "")
    throw new HookInputError("toolName: expected a non-empty string");
  let args = input.toolArgs;
  if (typeof args === "string") {
    try {
      args = parseArgs(args);
    } catch (err) {
      throw new HookInputError(`toolArgs: not valid json${err instanceof TesseraError ? ` (${err.message})` : ""}`);
    }
  }
  if (!isObject(args)) throw new HookInputError("toolArgs: expected a json object (or its text)");
  return { tool: input.toolName, arguments: args };
}

/** The answer Copilot reads: always exit 0, with the decision in JSON. */
export function copilotAnswer(v: HookVerdict): HookAnswer {
  if (v.decision === "allow") {
    // a reason only in shadow mode, which says so
    const out =
      v.reason === ""
        ? { permissionDecision: "allow" }
        : { permissionDecision: "allow", permissionDecisionReason: v.reason };
    return { stdout: `${JSON.stringify(out)}\n`, stderr: "", exit: 0 };
  }
  const reason =
    v.decision === "hold" ? `${v.reason}; a Copilot hook cannot ask for approval, so the call is denied` : v.reason;
  return {
    stdout: `${JSON.stringify({ permissionDecision: "deny", permissionDecisionReason: reason })}\n`,
    stderr: v.decision === "error" ? errorLine(v) : "",
    exit: 0,
  };
}
