// A tool the policy does not list: decided over HTTP only when the policy says how (adr/0125); a
// policy silent on `defaults.unlisted_tools` gets `unknown_tool`, never the CLI's default allow.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { check, root, refundsPolicy, runCli, startServeProcess, tempDir } from "./harness.js";

describe("an unlisted tool over HTTP", () => {
  it("is refused with unknown_tool when the policy is silent, decided when it sets the default", async () => {
    const t = tempDir("tessera-serve-unlisted");
    const silent = join(t.dir, "silent.yaml");
    writeFileSync(
      silent,
      readFileSync(refundsPolicy, "utf8")
        .replace("./billing.db", join(root, "examples", "refunds", "billing.db"))
        .replace(/^ {2}unlisted_tools: allow.*$/m, ""),
    );
    const cli = await runCli(["check", "--policy", silent, "--call", "-", "--json"], {
      input: JSON.stringify({ tool: "lookup_order", arguments: {} }),
    });
    expect(JSON.parse(cli.stdout)).toMatchObject({ decision: "allow", reason: "unlisted_tool" }); // the CLI's default
    const store = join(t.dir, "s.db");
    const quiet = await startServeProcess(["--policy", silent, "--store", store]);
    const said = await startServeProcess(["--policy", refundsPolicy, "--store", join(t.dir, "t.db")]);
    try {
      const refused = await check(quiet.url, { tool: "lookup_order", arguments: { "<b>": 1 } });
      expect(refused.status).toBe(404);
      expect(refused.json).toEqual({
        error: {
          code: "unknown_tool",
          message:
            "tool: the policy does not list `lookup_order` and does not set `defaults.unlisted_tools`; set it to decide unlisted tools",
        },
      });
      // a name that folds to a listed tool's is still the policy's block, not a 404
      const shadow = await check(quiet.url, { tool: "refund-order" });
      expect([shadow.status, (shadow.json as { reason: string }).reason]).toEqual([200, "tool_name_shadows"]);
      const listed = await check(quiet.url, { tool: "refund_order", arguments: { order_id: 1001, amount_cents: 1 } });
      expect(listed.status).toBe(200);
      const decided = await check(said.url, { tool: "lookup_order" });
      expect([decided.status, (decided.json as { reason: string }).reason]).toEqual([200, "unlisted_tool"]);
      // nothing was audited as a decision for the refused request
      const audit = await runCli(["audit", "export", "--jsonl", "--store", store]);
      const tools = audit.stdout
        .trim()
        .split("\n")
        .filter((l) => l !== "")
        .map((l) => (JSON.parse(l) as { tool?: string }).tool);
      expect(tools).not.toContain("lookup_order");
    } finally {
      for (const p of [quiet, said]) {
        p.child.kill("SIGTERM");
        await p.exited;
      }
      t.cleanup();
    }
  });
});
