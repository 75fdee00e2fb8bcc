// Who may call: no token is no service (exit 2), a short token is refused, a callers file binds
// each token to the context keys it may set, and a caller setting another key is refused (403).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { check, refundsPolicy, root, runCli, startServeProcess, tempDir } from "./harness.js";

const serveArgs = (dir: string) => ["serve", "--policy", refundsPolicy, "--store", join(dir, "s.db"), "--port", "0"];

describe("tessera serve refuses to start", () => {
  it("without a token, with the reason, and creates no store", async () => {
    const t = tempDir("tessera-serve-start");
    const r = await runCli(serveArgs(t.dir));
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no caller is configured: set TESSERA_SERVE_TOKEN.*refusing to serve without one/);
    expect(r.stderr.trim().split("\n")).toHaveLength(1);
    const { existsSync } = await import("node:fs");
    expect(existsSync(join(t.dir, "s.db"))).toBe(false);
    t.cleanup();
  });

  it("with a token shorter than 16 characters", async () => {
    const t = tempDir("tessera-serve-start");
    const r = await runCli(serveArgs(t.dir), { env: { TESSERA_SERVE_TOKEN: "fifteen-chars!!" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/at least 16 characters/);
    t.cleanup();
  });

  it.each([
    [
      "a context key the policy does not have",
      { callers: [{ name: "a", token: "x".repeat(20), context: ["tier"] }] },
      /callers\[0\]\.context\[0\]: `tier` is not a context key/,
    ],
    [
      "two callers sharing a token",
      {
        callers: [
          { name: "a", token: "y".repeat(20) },
          { name: "b", token: "y".repeat(20) },
        ],
      },
      /callers\[1\]: two callers share one token/,
    ],
    [
      "a token_env that is not set",
      { callers: [{ name: "a", token_env: "NOT_SET_ANYWHERE_XYZ" }] },
      /NOT_SET_ANYWHERE_XYZ` is not set/,
    ],
    ["a short token", { callers: [{ name: "a", token: "short" }] }, /callers\[0\]: a token must be at least 16/],
    ["an unknown key", { callers: [{ name: "a", token: "z".repeat(20), tokn: 1 }] }, /callers\[0\]\.tokn: unknown key/],
  ])("with a callers file with %s", async (_what, doc, message) => {
    const t = tempDir("tessera-serve-start");
    const file = join(t.dir, "callers.json");
    writeFileSync(file, JSON.stringify(doc));
    const r = await runCli([...serveArgs(t.dir), "--callers", file]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    t.cleanup();
  });
});

describe("callers bound to context keys", () => {
  it("accept a key the caller may set, and refuse one it may not", async () => {
    const t = tempDir("tessera-serve-callers");
    const file = join(t.dir, "callers.yaml");
    writeFileSync(
      file,
      "callers:\n  - { name: billing, token_env: BILLING_TOKEN, context: [customer_id] }\n  - { name: reader, token: reader-token-0123456789 }\n",
    );
    const billing = "billing-token-0123456789";
    const p = await startServeProcess(["--policy", refundsPolicy, "--store", join(t.dir, "s.db"), "--callers", file], {
      env: { BILLING_TOKEN: billing, TESSERA_SERVE_TOKEN: undefined },
    });
    try {
      expect(p.stderr()).toContain("callers billing, reader");
      const call = {
        tool: "refund_order",
        arguments: { order_id: 1001, amount_cents: 10 },
        context: { customer_id: "c-1" },
      };
      const ok = await check(p.url, call, billing);
      expect([ok.status, (ok.json as { decision: string }).decision]).toEqual([200, "allow"]);
      const refused = await check(p.url, call, "reader-token-0123456789");
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({
        error: { code: "context_key_forbidden", message: "context.customer_id: caller `reader` may not set this key" },
      });
      // without context the reader is decided, and the missing binding blocks: never an allow
      const bare = await check(p.url, { tool: call.tool, arguments: call.arguments }, "reader-token-0123456789");
      expect([bare.status, (bare.json as { decision: string }).decision]).toEqual([200, "block"]);
      const nonScalar = await check(p.url, { ...call, context: { customer_id: { id: "c-1" } } }, billing);
      expect(nonScalar.status).toBe(400);
      expect((nonScalar.json as { error: { message: string } }).error.message).toMatch(/^context\.customer_id: /);
      // the token of the environment is not a caller when a callers file is given
      expect((await check(p.url, call)).status).toBe(401);
    } finally {
      p.child.kill("SIGTERM");
      expect(await p.exited).toBe(0);
      t.cleanup();
    }
  });
});

describe("the policy's audit config", () => {
  it("keeps arguments and context in decision events with audit.values, in the store, not audit.path", async () => {
    const t = tempDir("tessera-serve-values");
    const policy = join(t.dir, "policy.yaml");
    writeFileSync(
      policy,
      `${readFileSync(refundsPolicy, "utf8").replace("./billing.db", join(root, "examples", "refunds", "billing.db"))}\naudit: { path: ./elsewhere.db, values: true }\n`,
    );
    const store = join(t.dir, "s.db");
    const p = await startServeProcess(["--policy", policy, "--store", store]);
    try {
      expect(p.stderr()).toContain("the policy's `audit.path` is not used");
      const call = {
        tool: "refund_order",
        arguments: { order_id: 1001, amount_cents: 7 },
        context: { customer_id: "c-1" },
      };
      const got = await check(p.url, call);
      expect(got.status).toBe(200);
      const audit = await runCli(["audit", "export", "--jsonl", "--store", store]);
      const event = JSON.parse(audit.stdout.trim().split("\n")[0]!) as Record<string, unknown>;
      expect([event.arguments, event.context]).toEqual([call.arguments, call.context]);
      const { existsSync } = await import("node:fs");
      expect(existsSync(join(t.dir, "elsewhere.db"))).toBe(false);
    } finally {
      p.child.kill("SIGTERM");
      expect(await p.exited).toBe(0);
      t.cleanup();
    }
  });
});
