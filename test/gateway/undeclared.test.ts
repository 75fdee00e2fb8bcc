// Arguments the pinned tool definition does not declare: refused before grounding unless the policy
// allows them for the tool; a key that folds to a declared one is refused either way. The counting
// upstream declares `refund_order: {order_id, request}`; the policy grounds only `order_id`.
import { spawnSync } from "node:child_process";
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { ReviewStore } from "../../src/review/types.js";
import {
  cliPath,
  counted,
  gatewayProcess,
  type Running,
  startGateway,
  tempDir,
  TestClock,
  textOf,
  verdictOf,
} from "./harness.js";
import { type GatewayPolicy, openGatewayPolicy } from "./policy.js";

let dir: string;
let cleanup: () => void;
let reviews: ReviewStore;
let policy: GatewayPolicy;
const clock = new TestClock();
const running: Running[] = [];

beforeEach(async () => {
  ({ dir, cleanup } = tempDir("gw-undeclared"));
  policy = await openGatewayPolicy(dir, clock.read);
  reviews = openSqliteReviewStore(join(dir, "gateway.db"));
});
afterEach(async () => {
  for (const r of running.splice(0)) await r.close();
  await reviews.close();
  await policy.close();
  cleanup();
});

const reached = () => counted(join(dir, "counter.jsonl")).map((c) => c.arguments);

async function gateway(rule?: "refuse" | "allow") {
  const gw = await startGateway({
    dir,
    decide: policy.decide,
    describe: policy.describe,
    reviews,
    audit: policy.audit,
    clock,
    policyDigest: policy.digest,
    ...(rule ? { undeclaredArguments: (tool: string) => (tool === "refund_order" ? rule : "refuse") } : {}),
  });
  running.push(gw);
  return gw;
}

describe("undeclared arguments", () => {
  it("refuses by default a key the inputSchema does not declare, naming it, before any check or upstream", async () => {
    const gw = await gateway();
    const r = await gw.call("refund_order", { order_id: policy.orders.allowed, amount_cents: 100 });
    expect(verdictOf(r)).toMatchObject({ decision: "block", codes: ["argument_undeclared"] });
    expect(textOf(r)).toBe(
      "blocked by tessera: argument `amount_cents` is not declared by the inputSchema of `refund_order`; list it there, or set `tools.refund_order.undeclared_arguments: allow` in the policy",
    );
    // a key with an invisible character is named as the printable filter shows it
    const hidden = await gw.call("refund_order", { order_id: policy.orders.allowed, "note\u200b\u001b[2J": "x" });
    expect(textOf(hidden)).toContain("argument `note\\u200b\\u001b[2J` is not declared");
    // a declared, ungrounded argument still passes
    const ok = await gw.call("refund_order", { order_id: policy.orders.allowed, request: "please" });
    expect(verdictOf(ok)?.decision).toBe("forward");
    expect(reached()).toEqual([{ order_id: policy.orders.allowed, request: "please" }]);
    const decisions = policy.events().filter((e) => e.type === "tessera.decision.v1");
    expect(decisions.map((e) => [e.action, e.reason ?? null, e.codes])).toEqual([
      ["reject", "argument_undeclared", ["argument_undeclared"]],
      ["reject", "argument_undeclared", ["argument_undeclared"]],
      ["forward", null, []],
    ]);
  });

  it("lets undeclared keys through when the policy allows them, but never a key shadowing a declared one", async () => {
    const gw = await gateway("allow");
    expect(verdictOf(await gw.call("refund_order", { order_id: policy.orders.allowed, extra: 1 }))?.decision).toBe(
      "forward",
    );
    for (const shadow of ["REQUEST", "request\u200b", "Request"]) {
      const r = await gw.call("refund_order", { order_id: policy.orders.allowed, [shadow]: "x" });
      expect(verdictOf(r)).toMatchObject({ decision: "block", codes: ["argument_shadowed"] });
      expect(textOf(r)).toContain("shadows `request` of `refund_order`");
    }
    // two undeclared keys of one call that fold together are shadows of each other
    const twins = await gw.call("refund_order", { order_id: policy.orders.allowed, extra: 1, EXTRA: 2 });
    expect(textOf(twins)).toBe(
      "blocked by tessera: argument `EXTRA` shadows `extra` of `refund_order`; a reader that folds case or drops invisible characters could take either",
    );
    // the rule is per tool: echo still refuses
    expect(verdictOf(await gw.call("echo", { text: "a", extra: 1 }))?.codes).toEqual(["argument_undeclared"]);
    expect(reached()).toEqual([{ order_id: policy.orders.allowed, extra: 1 }]);
  });
});

describe("tessera gateway reads tools.<tool>.undeclared_arguments from the policy", () => {
  it("allows an undeclared key for the tool that says so, refuses it for others", async () => {
    // the policy written by openGatewayPolicy, with the rule added to refund_order
    appendFileSync(join(dir, "policy.yaml"), "    undeclared_arguments: allow\n");
    expect(
      spawnSync(process.execPath, [cliPath, "policy", "lint", join(dir, "policy.yaml")], { encoding: "utf8" }).status,
    ).toBe(0);
    const client = new Client({ name: "undeclared-test", version: "1.0.0" });
    await client.connect(gatewayProcess(dir, join(dir, "cli.db"), { stderr: "ignore" }));
    try {
      const call = async (name: string, args: Record<string, unknown>) =>
        verdictOf((await client.callTool({ name, arguments: args })) as CallToolResult);
      expect(await call("refund_order", { order_id: 1, extra: 1 })).toMatchObject({ decision: "forward" });
      expect(await call("echo", { text: "a", extra: 1 })).toMatchObject({ codes: ["argument_undeclared"] });
      expect(reached()).toEqual([{ order_id: 1, extra: 1 }]);
    } finally {
      await client.close();
    }
  });
});
