// Each request takes the policy in force from `current()` once: a host that swaps what `current()`
// answers (a reloader) changes the next decision, with its policy's digest, without a restart.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPolicy } from "../../src/checks/load.js";
import { createGate } from "../../src/gate.js";
import { loadCallers } from "../../src/serve/auth.js";
import type { InForce } from "../../src/serve/current.js";
import { startServe } from "../../src/serve/start.js";
import { check, refundsPolicy, root, TOKEN, tempDir } from "./harness.js";

describe("the policy in force", () => {
  it("is read through current() for each request", async () => {
    const t = tempDir("tessera-serve-current");
    const strict = join(t.dir, "strict.yaml");
    writeFileSync(
      strict,
      readFileSync(refundsPolicy, "utf8")
        .replace("./billing.db", join(root, "examples", "refunds", "billing.db"))
        .replace("unlisted_tools: allow", "unlisted_tools: block"),
    );
    const [a, b] = await Promise.all([loadPolicy(refundsPolicy), loadPolicy(strict)]);
    const gates = [createGate(a), createGate(b)];
    let inForce: InForce = { gate: gates[0]!, policyDigest: a.digest, effectiveDigest: "" };
    const serving = await startServe({
      policy: a,
      current: () => inForce,
      callers: loadCallers({ env: { TESSERA_SERVE_TOKEN: TOKEN } }, a.context),
      store: join(t.dir, "s.db"),
      host: "127.0.0.1",
      port: 0,
      limits: { maxBodyBytes: 65536, maxConcurrent: 8, deadlineMs: 10_000 },
      probeIntervalMs: 0,
    });
    try {
      const before = (await check(serving.url, { tool: "lookup_order" })).json as {
        decision: string;
        policy_digest: string;
      };
      expect([before.decision, before.policy_digest]).toEqual(["allow", a.digest]);
      inForce = { gate: gates[1]!, policyDigest: b.digest, effectiveDigest: "" };
      const after = (await check(serving.url, { tool: "lookup_order" })).json as {
        decision: string;
        policy_digest: string;
      };
      expect([after.decision, after.policy_digest]).toEqual(["block", b.digest]);
      expect(a.digest).not.toBe(b.digest);
    } finally {
      await serving.close();
      for (const g of gates) await g.close();
      t.cleanup();
    }
  });
});
