// `tessera gateway` reloads its policy while it runs (adr/0130): an editor's save by rename swaps in
// the new policy, which the next call is decided by (its digest in the verdict and the decision
// event); a broken save keeps the old policy in force and says why on stderr.
import { renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readAuditEvents } from "../../src/audit/log.js";
import { gatewayProcess, tempDir, verdictOf } from "./harness.js";
import { POLICY_YAML, writePolicy } from "./policy.js";

let dir: string;
let cleanup: () => void;
let client: Client | undefined;
let stderr = "";
let waiting: { pattern: RegExp; resolve: () => void }[] = [];

beforeEach(() => {
  ({ dir, cleanup } = tempDir("gw-reload"));
  writePolicy(dir, 8);
  stderr = "";
});
afterEach(async () => {
  await client?.close();
  client = undefined;
  cleanup();
});

/** Resolves when the gateway's stderr has a line matching `pattern` (beyond what it already has). */
function line(pattern: RegExp): Promise<void> {
  return new Promise((resolve) => waiting.push({ pattern, resolve }));
}

function onStderr(chunk: string): void {
  stderr += chunk;
  for (const text of chunk.split("\n")) {
    const matched = waiting.filter((w) => w.pattern.test(text));
    waiting = waiting.filter((w) => !matched.includes(w));
    for (const w of matched) w.resolve();
  }
}

/** Save `text` as an editor does: a new file renamed over the policy. */
function save(text: string): void {
  writeFileSync(join(dir, "policy.yaml.tmp"), text);
  renameSync(join(dir, "policy.yaml.tmp"), join(dir, "policy.yaml"));
}

describe("tessera gateway reloads its policy", () => {
  it("swaps in a saved policy for the next call, and keeps it when a save is broken", async () => {
    const transport = gatewayProcess(dir, join(dir, "gateway.db"));
    (transport.stderr as Readable).setEncoding("utf8").on("data", onStderr);
    const started = line(/^tessera gateway: grounding tool calls with /);
    client = new Client({ name: "reload-test", version: "1.0.0" });
    await client.connect(transport);
    await started;
    const call = async () =>
      (await client!.callTool({ name: "refund_order", arguments: { order_id: 1 } })) as CallToolResult;
    const first = verdictOf(await call())!;
    expect(first.decision).toBe("forward");

    // the new policy wants another customer: order 1 is blocked under it
    const reloaded = line(/^tessera gateway: reloaded the policy: sha256:[0-9a-f]{64} -> sha256:[0-9a-f]{64}$/);
    save(POLICY_YAML.replace("{ column: customer_id, ctx: customer_id }", "{ column: customer_id, value: c-9 }"));
    await reloaded;
    const second = verdictOf(await call())!;
    expect(second.decision).toBe("block");
    expect(second.policy_digest).not.toBe(first.policy_digest);

    const kept = line(/^tessera gateway: kept policy sha256:[0-9a-f]{64}: the new policy does not load: /);
    save("version: 1\nsources: {\n");
    await kept;
    expect(stderr).toMatch(
      new RegExp(
        `kept policy ${second.policy_digest}: the new policy does not load: .*policy\\.yaml:\\d+: invalid yaml`,
      ),
    );
    const third = verdictOf(await call())!;
    expect([third.decision, third.policy_digest]).toEqual(["block", second.policy_digest]);

    await client.close();
    client = undefined;
    const events = readAuditEvents(join(dir, "gateway.db"), "tessera.decision.v1");
    expect(events.map((e) => [e.policy_digest, e.decision])).toEqual([
      [first.policy_digest, "allow"],
      [second.policy_digest, "block"],
      [second.policy_digest, "block"],
    ]);
  });
});
