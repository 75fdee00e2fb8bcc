// The gateway over a policy in shadow mode (adr/0128): every call the enforcing policy blocks or
// holds reaches the counting upstream, no review is queued, and each decision event and result
// verdict records `enforced: false` with what the policy decided.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decisionPayload } from "../../src/audit/decision.js";
import { openAuditLog, readAuditEvents } from "../../src/audit/log.js";
import { createEngine, type Gate } from "../../src/checks/engine.js";
import { loadPolicy } from "../../src/checks/load.js";
import { registryOpener } from "../../src/gate.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { ReviewStore } from "../../src/review/types.js";
import { counted, type Running, startGateway, tempDir, verdictOf } from "./harness.js";
import { CONTEXT, POLICY_YAML, writePolicy } from "./policy.js";

let dir: string;
let cleanup: () => void;
let reviews: ReviewStore;
let engine: Gate;
let enforcing: Gate;
let log: ReturnType<typeof openAuditLog>;
let gw: Running;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir("gw-shadow"));
  writePolicy(dir, 16);
  writeFileSync(join(dir, "shadow.yaml"), POLICY_YAML.replace("version: 1\n", "version: 1\nmode: shadow\n"));
  const shadow = await loadPolicy("shadow.yaml", { env: {}, cwd: dir });
  const enforce = await loadPolicy("policy.yaml", { env: {}, cwd: dir });
  engine = createEngine(shadow, registryOpener(shadow));
  enforcing = createEngine(enforce, registryOpener(enforce));
  log = openAuditLog(join(dir, "audit.db"));
  reviews = openSqliteReviewStore(join(dir, "gateway.db"));
  gw = await startGateway({
    dir,
    decide: (call) => engine.check(call, CONTEXT),
    describe: (d, call, digest) =>
      decisionPayload(d as Parameters<typeof decisionPayload>[0], call, CONTEXT, { digest }),
    reviews,
    audit: log,
    policyDigest: shadow.digest,
  });
});

afterEach(async () => {
  await gw.close();
  await reviews.close();
  log.close();
  await engine.close();
  await enforcing.close();
  cleanup();
});

describe("gateway in shadow mode", () => {
  it("forwards every call, blocked and held ones too, and records what the policy decided", async () => {
    const ids = [1, 2, 3, 4, 5, 6, 7, 8];
    const want = await Promise.all(
      ids.map((id) => enforcing.check({ tool: "refund_order", arguments: { order_id: id } }, CONTEXT)),
    );
    expect(new Set(want.map((d) => d.decision))).toEqual(new Set(["allow", "block", "hold"]));
    for (const id of ids) {
      const result = await gw.call("refund_order", { order_id: id });
      expect(result.isError, `order ${id}`).not.toBe(true);
      const verdict = verdictOf(result)!;
      expect(verdict.decision).toBe("forward");
      expect(verdict.enforced).toBe(false);
      expect(verdict.policy_decision).toBe(want[id - 1]!.decision);
    }
    expect(counted(join(dir, "counter.jsonl")).map((c) => c.arguments.order_id)).toEqual(ids);
    expect(await reviews.list(Date.now())).toEqual([]);
    const decisions = readAuditEvents(join(dir, "audit.db"), "tessera.decision.v1");
    expect(decisions.map((e) => [e.decision, e.enforced, e.action])).toEqual(
      want.map((d) => [d.decision, false, "forward"]),
    );
  });
});
