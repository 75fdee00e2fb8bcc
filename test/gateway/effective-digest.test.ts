// The document digest is taken before `${VAR}` interpolation (adr/0006), so one policy file deployed
// with different variables has one digest. Approvals and decision events are also bound to the
// effective digest, after interpolation (adr/0066): an approval given under one deployment is never
// used by another.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decisionPayload } from "../../src/audit/decision.js";
import { openAuditLog, readAuditEvents } from "../../src/audit/log.js";
import { createEngine } from "../../src/checks/engine.js";
import { effectivePolicyDigest } from "../../src/checks/effective.js";
import { loadPolicy } from "../../src/checks/load.js";
import { approveReview } from "../../src/review/actions.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { ReviewStore } from "../../src/review/types.js";
import { registryOpener } from "../../src/gate.js";
import { canonicalJson } from "../../src/core/canonical.js";
import { sha256Hex } from "../../src/platform/digest.js";
import { counted, type Running, startGateway, tempDir, TestClock, verdictOf } from "./harness.js";
import { CONTEXT, POLICY_YAML, writePolicy } from "./policy.js";

let dir: string;
let cleanup: () => void;
let reviews: ReviewStore;
const clock = new TestClock();
const closers: (() => Promise<unknown> | unknown)[] = [];

// the status a delivered-only refund wants comes from the deployment's environment
const TEMPLATE = POLICY_YAML.replace(
  "{ column: status, value: delivered }",
  '{ column: status, value: "${WANT_STATUS}" }',
);

beforeEach(() => {
  ({ dir, cleanup } = tempDir("gw-effective"));
  writePolicy(dir, 20);
  writeFileSync(join(dir, "policy.yaml"), TEMPLATE);
  reviews = openSqliteReviewStore(join(dir, "gateway.db"));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await reviews.close();
  cleanup();
});

const load = (WANT_STATUS: string) => loadPolicy(join(dir, "policy.yaml"), { env: { WANT_STATUS }, cwd: dir });

describe("effectivePolicyDigest", () => {
  it("differs where the variables differ, and only there; the document digest does not", async () => {
    const [a, again, b] = await Promise.all([load("delivered"), load("delivered"), load("returned")]);
    expect(a.digest).toBe(b.digest);
    expect(effectivePolicyDigest(a)).toMatch(/^scrypt:[0-9a-f]{64}$/);
    expect(effectivePolicyDigest(a)).toBe(effectivePolicyDigest(again));
    expect(effectivePolicyDigest(a)).not.toBe(effectivePolicyDigest(b));
    // not a plain hash of the interpolated text a guesser could recompute cheaply
    expect(effectivePolicyDigest(a)).not.toContain(sha256Hex(canonicalJson(a)));
    expect(() => effectivePolicyDigest({ ...a })).toThrow(/not loaded by loadPolicy/);
  });
});

describe("gateway approvals and events are bound to the effective digest", () => {
  async function deployment(WANT_STATUS: string): Promise<{ gw: Running; effective: string; events: () => unknown[] }> {
    const policy = await load(WANT_STATUS);
    const engine = createEngine(policy, registryOpener(policy));
    const auditFile = join(dir, `audit-${WANT_STATUS}.db`);
    const log = openAuditLog(auditFile, { clock: () => new Date(clock.now) });
    const effective = effectivePolicyDigest(policy);
    const gw = await startGateway({
      dir,
      decide: (call) => engine.check(call, CONTEXT),
      describe: (d, call, digest) =>
        decisionPayload(d as Parameters<typeof decisionPayload>[0], call, CONTEXT, { digest }),
      reviews,
      audit: log,
      clock,
      policyDigest: policy.digest,
      contextDigest: reviews.digest(CONTEXT),
      effectiveDigest: effective,
    });
    closers.push(
      () => engine.close(),
      () => log.close(),
      () => gw.close(),
    );
    return { gw, effective, events: () => readAuditEvents(auditFile) };
  }

  it("an approval given under one deployment's variables is not used under another's", async () => {
    const a = await deployment("delivered");
    const b = await deployment("returned");
    const held = verdictOf(await a.gw.call("refund_order", { order_id: 3 }))!; // shipped: holds under both
    expect(held.decision).toBe("hold");
    const review = await reviews.get(held.review_id!, clock.now);
    expect(review).toMatchObject({ effective_digest: a.effective });
    await approveReview(reviews, { append: () => undefined }, held.review_id!, "ada", clock.now);

    // same tool, arguments, document digest and context: only the effective policy differs
    const other = verdictOf(await b.gw.call("refund_order", { order_id: 3 }))!;
    expect(other).toMatchObject({ decision: "hold", policy_digest: held.policy_digest });
    expect(other.review_id).not.toBe(held.review_id);
    expect(counted(join(dir, "counter.jsonl"))).toEqual([]);

    expect(verdictOf(await a.gw.call("refund_order", { order_id: 3 }))).toMatchObject({
      decision: "forward",
      review_id: held.review_id,
    });
    const decisions = (a.events() as Record<string, unknown>[]).filter((e) => e.type === "tessera.decision.v1");
    expect(decisions.map((e) => Object.keys(e).slice(6, 9))).toEqual([
      ["policy_digest", "effective_digest", "arguments_digest"],
      ["policy_digest", "effective_digest", "arguments_digest"],
    ]);
    expect(decisions.map((e) => e.effective_digest)).toEqual([a.effective, a.effective]);
    const reviewEvents = (b.events() as Record<string, unknown>[]).filter((e) => e.type === "tessera.review.v1");
    expect(reviewEvents.filter((e) => e.action === "held").map((e) => e.effective_digest)).toEqual([b.effective]);
  });
});

// The queue as the release before this binding made it: no effective_digest column, indexes without it.
const BEFORE = (table: string) => `CREATE TABLE ${table} (id TEXT PRIMARY KEY,
  state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'consumed', 'expired')), tool TEXT NOT NULL,
  arguments_digest TEXT NOT NULL, policy_digest TEXT NOT NULL, context_digest TEXT NOT NULL DEFAULT '',
  arguments_json TEXT NOT NULL, reasons_json TEXT NOT NULL, approval_ttl_ms BIGINT NOT NULL, created_at BIGINT NOT NULL,
  decided_at BIGINT, decided_by TEXT, expires_at BIGINT, consumed_at BIGINT);
INSERT INTO ${table} VALUES ('rv_0000000000ff', 'approved', 't', 'sha256:a', 'sha256:p', 'sha256:ctx', '{}', '[]', 60000, 1, 2, 'ada', ${clock.now + 60_000}, NULL);`;
const key = { tool: "t", arguments_digest: "sha256:a", policy_digest: "sha256:p", context_digest: "sha256:ctx" };

describe("a SQLite queue written before approvals were bound to the effective policy", () => {
  it("gains the column and its indexes; an approval stored then is never used by a call bound to one", async () => {
    const file = join(dir, "old.db");
    const old = new (await import("better-sqlite3")).default(file);
    old.exec(`${BEFORE("gateway_reviews")}
      CREATE UNIQUE INDEX gateway_reviews_one_pending_call ON gateway_reviews (tool, arguments_digest, policy_digest, context_digest) WHERE state = 'pending';
      CREATE INDEX gateway_reviews_by_call_state ON gateway_reviews (tool, arguments_digest, policy_digest, context_digest, state);`);
    old.close();
    const s = openSqliteReviewStore(file);
    try {
      expect(await s.get("rv_0000000000ff", clock.now)).toMatchObject({ state: "approved", effective_digest: "" });
      expect(await s.consume({ ...key, effective_digest: "scrypt:e" }, clock.now)).toBeNull();
      const held = await s.hold(
        {
          ...key,
          effective_digest: "scrypt:e",
          arguments: {},
          reasons: [],
          approval_ttl_ms: 1_000,
          review_ttl_ms: 9_000,
        },
        clock.now,
      );
      expect(held).toMatchObject({ created: true, review: { effective_digest: "scrypt:e" } });
    } finally {
      await s.close();
    }
    const read = new (await import("better-sqlite3")).default(file, { readonly: true });
    const sql = read
      .prepare(
        // the indexes over a call's key (the listing indexes of adr/0113 hold no key)
        "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'gateway_reviews' AND sql IS NOT NULL AND name NOT IN ('gateway_reviews_by_state_deadline', 'gateway_reviews_by_state_created', 'gateway_reviews_by_created')",
      )
      .pluck()
      .all() as string[];
    read.close();
    // every index over a call key has the column
    expect(sql).toHaveLength(2);
    for (const index of sql) expect(index).toContain("effective_digest");
  });
});
