/**
 * Arguments the pinned tool definition does not declare. An upstream may bind a key the policy
 * never grounds (an unlisted `ORDER_ID` read case-insensitively, an extra `amount`), so when the
 * tool's `inputSchema` declares `properties`, a key outside them is refused unless the policy
 * allows it for that tool; a key that folds to a declared one, or to another key of the call, is
 * refused always (adr/0065).
 * @module
 */
import { foldedName } from "../../checks/bindings.js";
import { printable } from "../../platform/printable.js";

/** The policy's rule for a tool's undeclared arguments. */
export type UndeclaredRule = "refuse" | "allow";

/** Why one argument key is refused before grounding. */
export interface ArgumentRefusal {
  readonly code: "argument_undeclared" | "argument_shadowed";
  readonly message: string;
}

/** The property names an `inputSchema` declares, or null when it declares none (no `properties` object). */
export function declaredProperties(inputSchema: unknown): readonly string[] | null {
  if (inputSchema === null || typeof inputSchema !== "object" || Array.isArray(inputSchema)) return null;
  const properties = (inputSchema as Record<string, unknown>).properties;
  if (properties === null || typeof properties !== "object" || Array.isArray(properties)) return null;
  return Object.keys(properties);
}

/** The first argument key `rule` does not let through, in the call's key order; null when every key may pass. */
export function refusedArgument(
  tool: string,
  inputSchema: unknown,
  args: Readonly<Record<string, unknown>>,
  rule: UndeclaredRule,
): ArgumentRefusal | null {
  const declared = declaredProperties(inputSchema);
  const byFold = new Map<string, string>();
  for (const name of declared ?? []) if (!byFold.has(foldedName(name))) byFold.set(foldedName(name), name);
  const declaredSet = new Set(declared ?? []);
  const seen = new Map<string, string>();
  for (const key of Object.keys(args)) {
    const folded = foldedName(key);
    const twin = declaredSet.has(key) ? undefined : (byFold.get(folded) ?? seen.get(folded));
    if (twin !== undefined && twin !== key) {
      return {
        code: "argument_shadowed",
        message: `argument \`${printable(key)}\` shadows \`${printable(twin)}\` of \`${printable(tool)}\`; a reader that folds case or drops invisible characters could take either`,
      };
    }
    if (!seen.has(folded)) seen.set(folded, key);
    if (declared !== null && !declaredSet.has(key) && rule === "refuse") {
      return {
        code: "argument_undeclared",
        message: `argument \`${printable(key)}\` is not declared by the inputSchema of \`${printable(tool)}\`; list it there, or set \`tools.${printable(tool)}.undeclared_arguments: allow\` in the policy`,
      };
    }
  }
  return null;
}
