// Trusted context for check_tool_call comes from the server's configuration: the `--context` file
// and TESSERA_CONTEXT_JSON (the file wins a key); the result's _meta names the keys bound.
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { CONTEXT_FILE, POLICY, removeCaseFiles } from "./cases.js";
import { call, cli, type Session, stdioSession } from "./helpers.js";

let s: Session | undefined;
afterEach(async () => {
  await s?.close();
  s = undefined;
});
afterAll(removeCaseFiles);

const refund1010 = { tool: "refund_order", arguments: { order_id: 1010, amount_cents: 100 } };
const cancel1010 = { tool: "cancel_order", arguments: { order_id: 1010 } };

describe("trusted context", () => {
  it("from TESSERA_CONTEXT_JSON alone: c-2 may cancel its own shipped order 1010", async () => {
    s = await stdioSession(["--policy", POLICY], { TESSERA_CONTEXT_JSON: JSON.stringify({ customer_id: "c-2" }) });
    const r = await call(s.client, "check_tool_call", cancel1010);
    expect(r.structuredContent).toMatchObject({ decision: "allow" });
    expect(r._meta?.["tessera/context"]).toStrictEqual({ bound: ["customer_id"] });
    expect(s.stderr()).toMatch(/trusted context keys bound: customer_id \(from TESSERA_CONTEXT_JSON\)/);
    // a refund of a shipped order is still blocked (status must be delivered): the gate really ran
    expect((await call(s.client, "check_tool_call", refund1010)).structuredContent).toMatchObject({
      decision: "block",
    });
  });

  it("the --context file wins a key over the environment; non-scalar keys are not bound", async () => {
    s = await stdioSession(["--policy", POLICY, "--context", CONTEXT_FILE], {
      TESSERA_CONTEXT_JSON: JSON.stringify({ customer_id: "c-2", tenant: "eu" }),
    });
    const r = await call(s.client, "check_tool_call", cancel1010);
    expect(r.structuredContent).toMatchObject({ decision: "block" }); // c-1 from the file, not c-2
    expect(r._meta?.["tessera/context"]).toStrictEqual({ bound: ["customer_id", "tenant"] });
    const text = r.content[0]?.type === "text" ? r.content[0].text : "";
    expect(text).toMatch(/^block cancel_order: /);
    expect(text).toMatch(/trusted context bound: customer_id, tenant \(from the server's configuration\)$/);
  });

  it("without any context, ctx conditions cannot bind: blocked, never allowed", async () => {
    s = await stdioSession(["--policy", POLICY], { TESSERA_CONTEXT_JSON: "" });
    const r = await call(s.client, "check_tool_call", cancel1010);
    expect(r.structuredContent).toMatchObject({ decision: "block" });
    expect(r._meta?.["tessera/context"]).toStrictEqual({ bound: [] });
  });

  it("bad context configuration stops the server before it serves: exit 2", () => {
    const bad = cli(["mcp", "--policy", POLICY], { env: { TESSERA_CONTEXT_JSON: "[1, 2]" } });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toBe("tessera mcp: `TESSERA_CONTEXT_JSON` must hold a JSON object\n");
    const missing = cli(["mcp", "--policy", POLICY, "--context", "no/such/context.json"]);
    expect(missing.status).toBe(2);
    expect(missing.stderr).toBe("tessera mcp: cannot read context file `no/such/context.json`\n");
    const orphan = cli(["mcp", "--context", CONTEXT_FILE]);
    expect(orphan.status).toBe(2);
    expect(orphan.stderr).toBe("tessera mcp: `--context` needs `--policy`\n");
    // a field the policy binds that is not a scalar is the host's error, found before serving (adr/0046)
    const list = cli(["mcp", "--policy", POLICY], { env: { TESSERA_CONTEXT_JSON: '{"customer_id": ["c-1"]}' } });
    expect(list.status).toBe(2);
    expect(list.stderr).toBe("tessera mcp: trusted context field `customer_id` is a list, not a scalar\n");
    const policy = cli(["mcp", "--policy", "no/such/policy.yaml"]);
    expect(policy.status).toBe(2);
    expect(policy.stderr).toMatch(/^tessera mcp: no such policy file `.*no\/such\/policy.yaml`\n$/);
  });
});
