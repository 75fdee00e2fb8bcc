/**
 * Shadow mode (adr/0128): which of a policy's decisions are computed and audited but not enforced,
 * in the words every surface (CLI, MCP, gateway, adapters) uses to say so.
 * @module
 */
import type { Policy } from "./policy.js";

/** One line naming what runs in shadow mode, or null when the whole policy is enforced. */
export function shadowSummary(policy: Pick<Policy, "mode" | "tools"> | undefined): string | null {
  // a host's own Gate may carry no policy: nothing then says it is in shadow
  const tools = Object.entries(policy?.tools ?? {});
  if (policy === undefined) return null;
  const shadow = tools.filter(([, t]) => t.mode === "shadow").map(([name]) => name);
  const enforced = tools.length - shadow.length;
  if (policy.mode !== "shadow" && shadow.length === 0) return null;
  const what =
    policy.mode === "shadow"
      ? enforced === 0
        ? "the whole policy is in shadow mode"
        : `the policy is in shadow mode except ${tools
            .filter(([, t]) => t.mode !== "shadow")
            .map(([n]) => `\`${n}\``)
            .join(", ")}`
      : `${shadow.map((n) => `\`${n}\``).join(", ")} ${shadow.length === 1 ? "is" : "are"} in shadow mode`;
  return `${what}: those decisions are audited and reported with \`enforced: false\`, and the calls go ahead`;
}
