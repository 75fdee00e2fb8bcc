// `tessera serve` reloads its policy when the file changes (adr/0130) and serves shadow mode
// (adr/0128): the call goes ahead (`Tessera-Action: run`), nothing is queued, and the Decision says
// `enforced: false`; a policy that does not load keeps the one in force.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { check, refundsPolicy, root, runCli, startServeProcess, tempDir, type ServeProcess } from "./harness.js";

const someoneElses = {
  tool: "refund_order",
  arguments: { order_id: 1003, amount_cents: 100 },
  context: { customer_id: "c-1" },
};

/** Wait until the process has written `pattern` on stderr (the event, never a while). */
function stderrShows(p: ServeProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const look = () => {
      if (pattern.test(p.stderr())) {
        p.child.stderr!.off("data", look);
        resolve();
      }
    };
    p.child.stderr!.on("data", look);
    void p.exited.then(() => reject(new Error(`exited before ${pattern}: ${p.stderr()}`)));
    look();
  });
}

/** Replace the file as editors do: write a sibling, then rename it over. */
function save(file: string, text: string): void {
  writeFileSync(`${file}.tmp`, text);
  renameSync(`${file}.tmp`, file);
}

describe("tessera serve with a policy that changes", () => {
  it("decides with the new policy once it loads, in shadow mode lets the call go ahead, and keeps it over a broken one", async () => {
    const t = tempDir("tessera-serve-reload");
    const file = join(t.dir, "policy.yaml");
    const enforcing = readFileSync(refundsPolicy, "utf8").replace(
      "./billing.db",
      join(root, "examples", "refunds", "billing.db"),
    );
    writeFileSync(file, enforcing);
    const store = join(t.dir, "s.db");
    const p = await startServeProcess(["--policy", file, "--store", store]);
    try {
      const before = await check(p.url, someoneElses);
      const a = before.json as { decision: string; policy_digest: string; enforced?: boolean };
      expect([a.decision, a.enforced, before.headers.get("tessera-action")]).toEqual(["block", undefined, "refuse"]);

      save(file, enforcing.replace("version: 1\n", "version: 1\nmode: shadow\n"));
      await stderrShows(
        p,
        /reloaded the policy: sha256:[0-9a-f]{64} -> sha256:[0-9a-f]{64}; the whole policy is in shadow mode/,
      );
      const shadow = await check(p.url, someoneElses);
      const b = shadow.json as { decision: string; policy_digest: string; enforced?: boolean };
      expect([b.decision, b.enforced, shadow.headers.get("tessera-action")]).toEqual(["block", false, "run"]);
      expect(b.policy_digest).not.toBe(a.policy_digest);
      // a would-be hold in shadow mode queues nothing
      const held = await check(p.url, {
        tool: "cancel_order",
        arguments: { order_id: 1001 },
        context: { customer_id: "c-1" },
      });
      expect([held.headers.get("tessera-action"), held.headers.get("tessera-review-id")]).toEqual(["run", null]);

      save(file, "version: 1\nsources: {\n");
      await stderrShows(p, /kept policy sha256:[0-9a-f]{64}: the new policy does not load/);
      const kept = (await check(p.url, someoneElses)).json as { policy_digest: string; enforced?: boolean };
      expect([kept.policy_digest, kept.enforced]).toEqual([b.policy_digest, false]);

      // every decision event names the digest it was decided under, and shadow ones say so
      const audit = await runCli(["audit", "export", "--jsonl", "--store", store]);
      const decisions = audit.stdout
        .trim()
        .split("\n")
        .map((l) => JSON.parse(l) as { type: string; policy_digest: string; enforced?: boolean; action: string })
        .filter((e) => e.type === "tessera.decision.v1");
      expect(
        decisions.map((e) => [e.policy_digest === a.policy_digest ? "A" : "B", e.enforced ?? true, e.action]),
      ).toEqual([
        ["A", true, "refuse"],
        ["B", false, "run"],
        ["B", false, "run"],
        ["B", false, "run"],
      ]);
      const list = await runCli(["review", "list", "--store", store]);
      expect(list.stdout).toBe("no pending reviews\n");
    } finally {
      p.child.kill("SIGTERM");
      expect(await p.exited).toBe(0);
      t.cleanup();
    }
  });
});
