/**
 * What a coding agent's pre-tool hook is told, whatever its protocol: the call Tessera grounds (its
 * tool named as the policy names it) and a verdict with a one-line reason the agent or its user sees.
 * @module
 */
import { foldedName } from "../checks/bindings.js";
import type { Decision } from "../checks/decision.js";
import { notRunHead, reasonLines, unlistedLine } from "../review/reasons.js";
import { TesseraError } from "../platform/errors.js";
import { printable } from "../platform/printable.js";

/** The call a hook input names, before grounding. */
export interface HookCall {
  readonly tool: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/** A hook's answer: the decision, or `error` when Tessera could not decide (which every protocol denies). */
export interface HookVerdict {
  readonly decision: "allow" | "block" | "hold" | "error";
  /** One line: why, for the agent (block, error) or the person asked (hold); empty for allow. */
  readonly reason: string;
}

/** A malformed hook input: the protocol's input is not what its agent documents (`input_invalid`). */
export class HookInputError extends TesseraError {
  constructor(message: string) {
    super("input_invalid", message);
    this.name = "HookInputError";
  }
}

export { isObject } from "../platform/objects.js";

/**
 * The policy's name for a tool the agent calls. Claude Code names an MCP tool `mcp__<server>__<tool>`:
 * when the policy does not list that full name, it grounds the call as `<tool>`, so a policy written
 * for an MCP server's tools guards them whichever agent calls them. A server name may itself hold
 * `__` or end in `_`, so every split is tried, leftmost first; a tool part that only folds to a
 * listed tool (`Refund_order`, `_refund_order`) is returned as it is, and the engine blocks it
 * (`tool_name_shadows`) rather than letting it pass as unlisted.
 */
export function policyToolName(name: string, listed: Readonly<Record<string, unknown>>): string {
  if (Object.hasOwn(listed, name) || !name.startsWith("mcp__")) return name;
  const folded = new Set(Object.keys(listed).map(foldedName));
  for (let i = name.indexOf("__", 6); i !== -1; i = name.indexOf("__", i + 1)) {
    const tool = name.slice(i + 2);
    if (tool !== "" && (Object.hasOwn(listed, tool) || folded.has(foldedName(tool)))) return tool;
  }
  return name;
}

/**
 * The verdict of a decision, with the checks that did not allow as its reason. A shadow-mode
 * decision (adr/0128) allows, and its reason says what would have happened.
 */
export function verdictOf(d: Decision): HookVerdict {
  if (d.enforced === false) {
    const would = d.decision === "allow" ? "allowed" : `would ${d.decision}: ${enforcedVerdict(d).reason}`;
    return { decision: "allow", reason: `tessera shadow mode, not enforced: ${would}` };
  }
  return enforcedVerdict(d);
}

function enforcedVerdict(d: Decision): HookVerdict {
  if (d.decision === "allow") return { decision: "allow", reason: "" };
  const why =
    d.reason === "unlisted_tool"
      ? [unlistedLine(printable(d.tool), d.decision)]
      : d.reason === "tool_name_shadows"
        ? [`\`${printable(d.tool)}\` is not a listed tool but folds to one (tool_name_shadows)`]
        : reasonLines(d).map((line) => printable(line));
  return { decision: d.decision, reason: [notRunHead(d), ...why].join("; ") };
}

/** The verdict when Tessera could not decide: denied, with the reason on one line. */
export function errorVerdict(message: string): HookVerdict {
  return { decision: "error", reason: `tessera could not check this call, so it is denied: ${printable(message)}` };
}

/** The one stderr line of an error verdict, in the form of every command's errors. */
export function errorLine(v: HookVerdict): string {
  return `tessera hook: ${v.reason.replace(/^tessera could not check this call, so it is denied: /, "")} (the call is denied)\n`;
}
