// Argument and context digests are keyed by a secret of the store (adr/0071): the audit log never
// lets a reader recover a value by hashing candidates, and approvals stay bound to the exact call.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { openAuditLog } from "../../src/audit/log.js";
import { openPgAuditLog } from "../../src/audit/postgres.js";
import { digestOf } from "../../src/platform/digest.js";
import { approveReview } from "../../src/review/actions.js";
import { openPgReviewStore } from "../../src/review/postgres.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import { cliPath, counted, root, startGateway, tempDir, TestClock, verdictOf } from "./harness.js";
import { PG_URL, pgReachable, REQUIRE_LIVE, storeUrl, uniqueSchema } from "./live.js";
import { CONTEXT, openGatewayPolicy } from "./policy.js";

const live = await pgReachable();
const KEYED = /^hmac-sha256:[0-9a-f]{64}$/;

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir("gw-keyed"));
});
afterEach(() => cleanup());

/** The candidates an attacker with the log would hash: 10,000 order ids, and as many customer ids. */
const orderCandidates = Array.from({ length: 10_000 }, (_, i) => ({ order_id: i, amount_cents: 4999 }));
const customerCandidates = Array.from({ length: 10_000 }, (_, i) => ({ customer_id: `c-${i}` }));

/** The candidate whose plain SHA-256 digest is `digest`, if any. */
const recover = (candidates: readonly unknown[], digest: unknown) => candidates.find((c) => digestOf(c) === digest);

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live).toBe(true);
});

describe("keyed digests over SQLite", () => {
  it("`check --audit` logs digests no enumeration of 10,000 candidates recovers, and never exports the key", () => {
    const audit = join(dir, "audit.db");
    const r = spawnSync(
      process.execPath,
      [
        cliPath,
        "check",
        "--policy",
        "examples/refunds/policy.yaml",
        "--call",
        "examples/refunds/calls/refund-own-order.json",
        "--context",
        "examples/refunds/context.json",
        "--audit",
        audit,
      ],
      { cwd: root, encoding: "utf8" },
    );
    expect(r.status, r.stderr).toBe(0);
    const exported = spawnSync(process.execPath, [cliPath, "audit", "export", "--jsonl", "--store", audit], {
      cwd: root,
      encoding: "utf8",
    });
    expect(exported.status, exported.stderr).toBe(0);
    const event = JSON.parse(exported.stdout.trimEnd()) as { arguments_digest: string; context_digest: string };
    expect(event.arguments_digest).toMatch(KEYED);
    expect(event.context_digest).toMatch(KEYED);
    // the control: the same enumeration finds the values behind plain digests at once
    expect(recover(orderCandidates, digestOf({ order_id: 1001, amount_cents: 4999 }))).toEqual({
      order_id: 1001,
      amount_cents: 4999,
    });
    expect(recover(customerCandidates, digestOf({ customer_id: "c-1" }))).toEqual({ customer_id: "c-1" });
    expect(recover(orderCandidates, event.arguments_digest)).toBeUndefined();
    expect(recover(customerCandidates, event.context_digest)).toBeUndefined();
    expect(orderCandidates.map(digestOf)).not.toContain(event.arguments_digest.replace("hmac-", ""));
    // whoever holds the store can check a digest: the log's own key gives exactly these
    const log = openAuditLog(audit);
    expect(log.digest({ order_id: 1001, amount_cents: 4999 })).toBe(event.arguments_digest);
    expect(log.digest({ customer_id: "c-1" })).toBe(event.context_digest);
    log.close();
    const db = new Database(audit, { readonly: true });
    const key = db.prepare("SELECT secret FROM tessera_store_key").pluck().get() as Buffer;
    db.close();
    expect(key).toHaveLength(32);
    for (const text of [key.toString("hex"), key.toString("base64")]) {
      expect(exported.stdout).not.toContain(text);
      expect(r.stdout + r.stderr + exported.stderr).not.toContain(text);
    }
  });

  it("the queue and the log of one file share the key; another file has its own; reopening keeps it", async () => {
    const call = { order_id: 1001, amount_cents: 4999 };
    const file = join(dir, "gateway.db");
    const reviews = openSqliteReviewStore(file);
    const log = openAuditLog(file);
    const first = reviews.digest(call);
    expect(first).toMatch(KEYED);
    expect(log.digest(call)).toBe(first);
    expect(reviews.digest({ amount_cents: 4999, order_id: 1001 })).toBe(first); // canonical JSON
    expect(reviews.digest({ order_id: 1002, amount_cents: 4999 })).not.toBe(first);
    await reviews.close();
    log.close();
    const again = openSqliteReviewStore(file);
    expect(again.digest(call)).toBe(first);
    await again.close();
    const other = openSqliteReviewStore(join(dir, "other.db"));
    expect(other.digest(call)).not.toBe(first);
    await other.close();
  });

  it("a store from before keyed digests gets a key; its old sha256 rows stay as they were and never match", async () => {
    const file = join(dir, "old.db");
    const old = openSqliteReviewStore(file);
    await old.close();
    const db = new Database(file);
    db.exec("DROP TABLE tessera_store_key");
    const plain = digestOf({ order_id: 3 });
    db.prepare(
      `INSERT INTO gateway_reviews (id, state, tool, arguments_digest, policy_digest, context_digest, arguments_json, reasons_json,
         approval_ttl_ms, created_at, decided_at, decided_by, expires_at)
       VALUES ('rv_000000000001', 'approved', 'refund_order', ?, 'sha256:p', ?, '{"order_id":3}', '[]', 60000, 1, 2, 'ada', ?)`,
    ).run(plain, digestOf({}), Number.MAX_SAFE_INTEGER);
    db.close();
    const reopened = openSqliteReviewStore(file);
    const row = (await reopened.get("rv_000000000001", 3))!;
    expect(row.arguments_digest).toBe(plain); // kept, and marked as plain by its prefix
    const key = {
      tool: "refund_order",
      arguments_digest: reopened.digest({ order_id: 3 }),
      policy_digest: "sha256:p",
      context_digest: reopened.digest({}),
    };
    expect(key.arguments_digest).toMatch(KEYED);
    expect(await reopened.consume(key, 3)).toBeNull(); // the old approval is not this call's
    expect((await reopened.get("rv_000000000001", 3))!.state).toBe("approved");
    await reopened.close();
  });

  it("an approved call replayed with changed arguments is held anew, and the identical call is forwarded once", async () => {
    const clock = new TestClock();
    const policy = await openGatewayPolicy(dir, clock.read);
    const reviews = openSqliteReviewStore(join(dir, "gateway.db"));
    const gw = await startGateway({
      dir,
      decide: policy.decide,
      describe: policy.describe,
      reviews,
      audit: policy.audit,
      clock,
      contextDigest: reviews.digest(CONTEXT), // as `tessera gateway` binds approvals to its context
    });
    try {
      const args = { order_id: policy.orders.held };
      const id = verdictOf(await gw.call("refund_order", args))!.review_id!;
      const held = (await reviews.get(id, clock.now))!;
      expect(held.arguments_digest).toBe(reviews.digest(args));
      expect(held.arguments_digest).not.toBe(digestOf(args));
      const decision = policy.events().find((e) => e.type === "tessera.decision.v1")!;
      expect([decision.arguments_digest, decision.context_digest]).toEqual([
        held.arguments_digest,
        held.context_digest,
      ]);
      await approveReview(reviews, policy.audit, id, "ada", clock.now);
      const changed = verdictOf(await gw.call("refund_order", { ...args, request: "more" }))!;
      expect(changed.decision).toBe("hold");
      expect(changed.review_id).not.toBe(id);
      expect(counted(join(dir, "counter.jsonl"))).toEqual([]);
      expect(verdictOf(await gw.call("refund_order", args))).toMatchObject({ decision: "forward", review_id: id });
      expect(verdictOf(await gw.call("refund_order", args))!.decision).toBe("hold");
      expect(counted(join(dir, "counter.jsonl"))).toHaveLength(1);
    } finally {
      await gw.close();
      await reviews.close();
      await policy.close();
    }
  });
});

describe.runIf(live)("keyed digests over Postgres", () => {
  const a = uniqueSchema("tessera_gw_keyed_a");
  const b = uniqueSchema("tessera_gw_keyed_b");
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${a} CASCADE; DROP SCHEMA IF EXISTS ${b} CASCADE`);
    await admin.end();
  });

  it("the queue and the log of one schema share the key; another schema has its own; reopening keeps it", async () => {
    const call = { order_id: 1001 };
    const reviews = await openPgReviewStore(storeUrl(a));
    const log = await openPgAuditLog(storeUrl(a));
    const first = reviews.digest(call);
    expect(first).toMatch(KEYED);
    expect(log.digest(call)).toBe(first);
    expect(recover(orderCandidates, first)).toBeUndefined();
    await reviews.close();
    await log.close();
    const again = await openPgReviewStore(storeUrl(a));
    expect(again.digest(call)).toBe(first);
    await again.close();
    const other = await openPgReviewStore(storeUrl(b));
    expect(other.digest(call)).not.toBe(first);
    await other.close();
  });

  it("a schema from before keyed digests gets a key when opened; its events keep their sha256 digests", async () => {
    const c = `${a}_old`;
    const old = await openPgAuditLog(storeUrl(c));
    await old.close();
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      await admin.query(`DROP TABLE ${c}.store_key`);
      const before = JSON.stringify({
        type: "tessera.decision.v1",
        id: "e1",
        at: "x",
        arguments_digest: digestOf(call0),
      });
      await admin.query(
        `INSERT INTO ${c}.audit_events (id, type, at, event) VALUES ('e1', 'tessera.decision.v1', 'x', $1)`,
        [before],
      );
      const log = await openPgAuditLog(storeUrl(c));
      expect(log.digest(call0)).toMatch(KEYED);
      await log.close();
      const keys = await admin.query(`SELECT length(secret) AS n FROM ${c}.store_key`);
      expect(keys.rows).toEqual([{ n: 32 }]);
      const rows = await admin.query(`SELECT event FROM ${c}.audit_events`);
      expect(rows.rows).toEqual([{ event: before }]);
    } finally {
      await admin.query(`DROP SCHEMA IF EXISTS ${c} CASCADE`);
      await admin.end();
    }
  });
});

const call0 = { order_id: 1001 };
