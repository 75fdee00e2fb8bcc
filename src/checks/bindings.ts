/**
 * Where each name a check binds comes from (adr/0046, specs/policy.md "Bindings"). Exactly one place:
 * `value` is the grounded argument; a trusted context field (declared under `context:` or named by a
 * `ctx:` condition anywhere in the policy) is read only from the host's context; a listed argument of
 * the tool only from the call. A name that is neither is refused when the policy loads, so no value
 * can fall back from the host's context to the agent's arguments.
 * @module
 */
import type { Condition } from "../core/index.js";

/** Where a bound name is read from. */
export type BindingSource = "value" | "context" | "argument";

/** One name a check binds, and where it comes from. */
export interface Binding {
  readonly name: string;
  readonly from: BindingSource;
}

interface ToolShape {
  readonly arguments: Readonly<
    Record<string, { readonly ground?: { readonly checks: readonly { readonly match: readonly Condition[] }[] } }>
  >;
}

/** The trusted context names of a policy: its `context:` list and every `ctx:` name, sorted. */
export function contextNames(declared: readonly string[] | undefined, tools: Readonly<Record<string, ToolShape>>) {
  const names = new Set(declared ?? []);
  for (const tp of Object.values(tools)) {
    for (const ap of Object.values(tp.arguments)) {
      for (const c of ap.ground?.checks ?? []) for (const m of c.match) if ("ctx" in m) names.add(m.ctx);
    }
  }
  return [...names].sort();
}

/**
 * Where `name` binds from in a check of a tool whose listed arguments are `listed`, or null when
 * nothing declares it (a configuration error). A context field wins over a listed argument of the
 * same name: that argument is then reachable only as `value`, in its own checks.
 */
export function bindingSource(
  name: string,
  context: ReadonlySet<string>,
  listed: ReadonlySet<string>,
): BindingSource | null {
  if (name === "value") return "value";
  if (context.has(name)) return "context";
  return listed.has(name) ? "argument" : null;
}

/** The names a check's conditions read through bindings: `ctx` names and `arg` names. */
export function conditionNames(match: readonly Condition[]): { ctx: string[]; arg: string[] } {
  const ctx: string[] = [];
  const arg: string[] = [];
  for (const m of match) {
    if ("ctx" in m && !ctx.includes(m.ctx)) ctx.push(m.ctx);
    if ("arg" in m && !arg.includes(m.arg)) arg.push(m.arg);
  }
  return { ctx, arg };
}

/**
 * A name for comparing argument keys and tool names the way a lenient reader might: compatibility
 * forms folded (NFKC), case folded (upper, then lower), then decomposed (NFD) with every mark,
 * invisible, separator, punctuation and symbol character removed. `ORDER_ID`, `orderId`, `order-id`,
 * `$order_id`, `order_ıd` and `order_id`
 * followed by U+200B all fold to `orderid`.
 */
export function foldedName(key: string): string {
  // upper then lower: `ı` and `ß` upper-case to ASCII (`I`, `SS`), as case-insensitive readers compare;
  // then every mark goes (`İ` lower-cases to `i` + U+0307, and accent-insensitive collations drop `é`'s)
  return key
    .normalize("NFKC")
    .toUpperCase()
    .toLowerCase()
    .normalize("NFD")
    .replace(/[\p{M}\p{Cf}\p{Cc}\p{Z}\p{P}\p{S}\s]/gu, "");
}

/** One name one check binds, for `tessera policy lint`: where in the policy, and where it comes from. */
export interface CheckBinding extends Binding {
  readonly tool: string;
  readonly argument: string;
  readonly check: number;
  /** How the check refers to it: a request placeholder or a condition. */
  readonly via: "placeholder" | "condition";
}
