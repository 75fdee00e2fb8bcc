/**
 * The check engine: binds a tool call's values, runs every check of every protected argument
 * against its Source, and combines the outcomes into one Decision (specs/policy.md). It knows
 * Sources only through the interface in source.ts; the caller supplies `openSource`. The steps live
 * in engine/: compile (once per gate), call-bindings (per call), attempt (per check, with retries,
 * through the source pool) and evaluate (pure).
 * @module
 */
import { type Bindings, combineOutcomes } from "../core/index.js";
import { TesseraError } from "../platform/errors.js";
import { foldedName } from "./bindings.js";
import type { CheckOptions, CheckReport, Decision, ToolCall, TrustedContext } from "./decision.js";
import { attempt } from "./engine/attempt.js";
import { argumentBindings, contextBindings, groundedValue, type InvalidArguments } from "./engine/call-bindings.js";
import { type CompiledCheck, compileTools } from "./engine/compile.js";
import { failed, outcomeOf, report } from "./engine/evaluate.js";
import { type OpenSource, SourcePool } from "./engine/source-pool.js";
import { type TracedDecision, tracedDecision } from "./engine/telemetry.js";
import { telemetry } from "../platform/telemetry.js";
import type { Policy } from "./policy.js";
import { isObject } from "../platform/objects.js";

export type { OpenSource } from "./engine/source-pool.js";

/** The key a shadow-mode decision carries (adr/0128); enforced decisions leave it out. */
const SHADOW = { enforced: false } as const;

/** A compiled policy that decides tool calls. */
export interface Gate {
  /** The policy this gate enforces. */
  readonly policy: Policy;
  /** Ground every protected argument of `call` and decide; trusted `context` comes from the host, never the agent. */
  check(call: ToolCall, context?: TrustedContext, options?: CheckOptions): Promise<Decision>;
  /** Close every opened Source. Idempotent; `check` fails afterwards. */
  close(): Promise<void>;
}

/**
 * Check a trusted context once where it is fixed for a process (the MCP server, the gateway): a
 * field the policy names that is not a bindable scalar throws `context_invalid`; returns the
 * policy's context names it lacks, whose checks will block with `binding_missing`.
 */
export function checkTrustedContext(policy: Policy, context: Readonly<Record<string, unknown>>): string[] {
  contextBindings(policy.context, context);
  return policy.context.filter((name) => !Object.hasOwn(context, name));
}

/**
 * Compile `policy` into a Gate. Sources open on first use through `openSource`; each check's
 * request is prepared once and reused.
 * @example const gate = createEngine(policy, async (name, config) => mySource(config));
 */
export function createEngine(policy: Policy, openSource: OpenSource): Gate {
  const tools = compileTools(policy);
  const foldedTools = new Map([...tools.keys()].map((name) => [foldedName(name), name]));
  const contextNames = new Set(policy.context);
  const pool = new SourcePool(policy.sources, openSource);
  const sourceKind = (source: string) => policy.sources[source]?.kind ?? "?";
  let closed = false;

  async function runCheck(
    cc: CompiledCheck,
    b: Bindings,
    invalid: InvalidArguments,
    explain: boolean,
    traced: TracedDecision | null,
  ) {
    const a = await attempt(cc, b, invalid, pool, contextNames, sourceKind, traced);
    return report(cc, a, outcomeOf(a, cc.policy), explain, b.value);
  }

  async function check(call: ToolCall, context: TrustedContext = {}, options: CheckOptions = {}): Promise<Decision> {
    const found = telemetry();
    const tel = found instanceof Promise ? await found : found;
    if (tel === null) return decide(call, context, options, null);
    return tracedDecision(tel, call, (traced) => decide(call, context, options, traced));
  }

  async function decide(
    call: ToolCall,
    context: TrustedContext,
    options: CheckOptions,
    traced: TracedDecision | null,
  ): Promise<Decision> {
    if (closed) throw new TesseraError("gate_closed", "the gate is closed");
    if (!isObject(call) || typeof call.tool !== "string" || call.tool === "") {
      throw new TesseraError(
        "call_invalid",
        "a call is an object with a non-empty string `tool` and an object `arguments`",
      );
    }
    if (!isObject(call.arguments)) throw new TesseraError("call_invalid", "expected an object", "arguments");
    if (!isObject(context)) throw new TesseraError("context_invalid", "trusted context: expected an object");
    const explain = options.explain === "values";
    const tool = tools.get(call.tool);
    if (tool === undefined) {
      // not a listed tool: the policy's own mode applies
      const mode = policy.mode === "shadow" ? SHADOW : {};
      if (foldedTools.has(foldedName(call.tool))) {
        return {
          decision: "block",
          tool: call.tool,
          policy_digest: policy.digest,
          ...mode,
          reason: "tool_name_shadows",
          checks: [],
        };
      }
      return {
        decision: policy.defaults.unlisted_tools,
        tool: call.tool,
        policy_digest: policy.digest,
        ...mode,
        reason: "unlisted_tool",
        checks: [],
      };
    }
    const ctx = contextBindings(policy.context, context);
    const { args, invalid } = argumentBindings(tool, call.arguments);
    const pending: (CheckReport | Promise<CheckReport>)[] = [];
    for (const arg of tool.arguments) {
      if (arg.checks.length === 0) continue;
      const grounded = groundedValue(arg.name, call.arguments, arg.asText, invalid);
      if (typeof grounded === "string") {
        for (const cc of arg.checks)
          pending.push(report(cc, failed(0, "argument_invalid", grounded), "block", false, undefined));
        continue;
      }
      const b: Bindings = { value: grounded.value, arguments: args, context: ctx };
      for (const cc of arg.checks) pending.push(runCheck(cc, b, invalid, explain, traced));
    }
    const checks = await Promise.all(pending);
    return {
      decision: combineOutcomes(checks.map((c) => c.outcome)),
      tool: call.tool,
      policy_digest: policy.digest,
      ...(policy.tools[call.tool]?.mode === "shadow" ? SHADOW : {}),
      checks,
    };
  }

  async function close(): Promise<void> {
    if (closed) return;
    closed = true;
    await pool.close();
  }

  return { policy, check, close };
}
