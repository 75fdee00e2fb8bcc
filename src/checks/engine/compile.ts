/**
 * A policy compiled once per gate: per tool, its listed arguments and their checks, with the names
 * each check's conditions read and the columns they need.
 * @module
 */
import { foldedName } from "../bindings.js";
import type { CheckPolicy, Policy } from "../policy.js";
import type { PreparedRequest, Source } from "../source.js";

/** One check of one argument, with its request prepared on first use. */
export interface CompiledCheck {
  readonly argument: string;
  readonly index: number;
  readonly policy: CheckPolicy;
  /** Names the match conditions read from trusted context (`ctx`) and through the bindings (`arg`). */
  readonly ctxNames: readonly string[];
  readonly argNames: readonly string[];
  readonly columns: readonly string[];
  /** The request as prepared by the Source it was prepared for; prepared again after a reopen. */
  prepared: { source: Source; request: PreparedRequest } | undefined;
}

/** A listed argument of a tool and its checks (none when it is only bound by name). */
export interface CompiledArgument {
  readonly name: string;
  readonly checks: readonly CompiledCheck[];
  readonly asText: boolean;
}

/** A listed tool. */
export interface CompiledTool {
  readonly arguments: readonly CompiledArgument[];
  /** Listed arguments that bind by name (a context field of the same name wins, adr/0046). */
  readonly bindable: ReadonlySet<string>;
  /** Folded listed-argument names, to refuse keys that shadow them. */
  readonly folded: ReadonlyMap<string, string>;
}

function compileCheck(argument: string, index: number, policy: CheckPolicy): CompiledCheck {
  const ctxNames: string[] = [];
  const argNames: string[] = [];
  const columns: string[] = [];
  for (const c of policy.match) {
    if ("ctx" in c) ctxNames.push(c.ctx);
    if ("arg" in c) argNames.push(c.arg);
    if ("column" in c) columns.push(c.column);
  }
  return { argument, index, policy, ctxNames, argNames, columns, prepared: undefined };
}

/** Every listed tool of `policy`, compiled. */
export function compileTools(policy: Policy): ReadonlyMap<string, CompiledTool> {
  const contextNames = new Set(policy.context);
  const tools = new Map<string, CompiledTool>();
  for (const [tool, tp] of Object.entries(policy.tools)) {
    const folded = new Map<string, string>();
    for (const name of Object.keys(tp.arguments)) folded.set(foldedName(name), name);
    tools.set(tool, {
      arguments: Object.entries(tp.arguments).map(([name, ap]) => ({
        name,
        checks: ap.ground.checks.map((c, i) => compileCheck(name, i, c)),
        asText: ap.as_text,
      })),
      bindable: new Set(Object.keys(tp.arguments).filter((n) => !contextNames.has(n))),
      folded,
    });
  }
  return tools;
}
