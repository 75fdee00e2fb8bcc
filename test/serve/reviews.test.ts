// A hold over HTTP goes to the review queue as the gateway's does: `tessera review approve`
// approves it, the identical call is then allowed exactly once, and GET /v1/reviews/<id> tells
// the state. On one SQLite store, and on one Postgres store (test_hN) shared by two instances.
import { join } from "node:path";
import pg from "pg";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import { afterAll, describe, expect, it } from "vitest";
import { PG_URL, pgReachable, REQUIRE_LIVE, storeUrl, uniqueSchema } from "../gateway/live.js";
import { check, refundsPolicy, request, runCli, type ServeProcess, startServeProcess, tempDir } from "./harness.js";

const held = { tool: "cancel_order", arguments: { order_id: 1001 }, context: { customer_id: "c-1" } };

async function stop(p: ServeProcess): Promise<void> {
  p.child.kill("SIGTERM");
  expect(await p.exited).toBe(0);
}

async function approveThenOnce(a: ServeProcess, b: ServeProcess, store: string): Promise<void> {
  const first = await check(a.url, held);
  expect(first.status).toBe(200);
  expect((first.json as { decision: string }).decision).toBe("hold");
  expect(first.headers.get("tessera-action")).toBe("hold");
  const id = first.headers.get("tessera-review-id")!;
  expect(id).toMatch(/^rv_[0-9a-f]{12}$/);
  // the identical call, through the other instance, waits on the same review
  const again = await check(b.url, held);
  expect([again.headers.get("tessera-action"), again.headers.get("tessera-review-id")]).toEqual(["hold", id]);
  expect(((await request(b.url, "GET", `/v1/reviews/${id}`)).json as { state: string }).state).toBe("pending");

  const approved = await runCli(["review", "approve", id, "--store", store, "--by", "ada", "--json"]);
  expect(approved.code, approved.stderr).toBe(0);
  const shown = await runCli(["review", "show", id, "--store", store, "--json"]);
  expect(((await request(a.url, "GET", `/v1/reviews/${id}`)).json as { state: string }).state).toBe("approved");

  // many identical calls at once, through both instances: exactly one runs, on the approval
  const tries = await Promise.all(Array.from({ length: 12 }, (_, i) => check(i % 2 === 0 ? b.url : a.url, held)));
  const runs = tries.filter((t) => t.headers.get("tessera-action") === "run");
  expect(runs.length).toBe(1);
  expect(runs[0]!.headers.get("tessera-review-id")).toBe(id);
  expect(tries.every((t) => t.status === 200 && (t.json as { decision: string }).decision === "hold")).toBe(true);
  const later = tries
    .filter((t) => t.headers.get("tessera-action") === "hold")
    .map((t) => t.headers.get("tessera-review-id"));
  expect(new Set(later).size).toBe(1); // the calls after it wait on one new review
  expect(later[0]).not.toBe(id);

  const consumed = await request(a.url, "GET", `/v1/reviews/${id}`);
  expect((consumed.json as { state: string }).state).toBe("consumed");
  // the service answers a review exactly as `tessera review show --json` prints it (the state aside)
  const after = await runCli(["review", "show", id, "--store", store, "--json"]);
  expect(consumed.text).toBe(after.stdout);
  expect(JSON.parse(shown.stdout).id).toBe(id);

  const audit = await runCli(["audit", "export", "--jsonl", "--store", store]);
  expect(audit.code, audit.stderr).toBe(0);
  const events = audit.stdout
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  const decisions = events.filter((e) => e.type === "tessera.decision.v1");
  expect(decisions.length).toBe(14);
  expect(decisions.filter((e) => e.action === "run").map((e) => e.review_id)).toEqual([id]);
  expect(events.filter((e) => e.type === "tessera.review.v1").map((e) => e.action)).toEqual([
    "held",
    "approved",
    "consumed",
    "held",
  ]);
}

describe("holds over HTTP on one SQLite store", () => {
  it("are approved with tessera review and allowed once", async () => {
    const t = tempDir("tessera-serve-reviews");
    const store = join(t.dir, "store.db");
    const a = await startServeProcess(["--policy", refundsPolicy, "--store", store]);
    try {
      await approveThenOnce(a, a, store);
    } finally {
      await stop(a);
      t.cleanup();
    }
  });
});

describe("a denied hold over HTTP", () => {
  it("refuses the identical call with the denied review, whose reason GET /v1/reviews/<id> gives", async () => {
    const t = tempDir("tessera-serve-denied");
    const store = join(t.dir, "store.db");
    const a = await startServeProcess(["--policy", refundsPolicy, "--store", store]);
    try {
      const first = await check(a.url, held);
      const id = first.headers.get("tessera-review-id")!;
      expect(first.headers.get("tessera-action")).toBe("hold");
      // the body is the Decision without values, while the hold keeps them for its reviewer's page
      expect(JSON.stringify(first.json)).not.toContain('"actual"');
      const queue = openSqliteReviewStore(store);
      const kept = (await queue.get(id, Date.now()))!.explained!;
      await queue.close();
      expect(kept.context_keys).toEqual(["customer_id"]);
      expect(JSON.stringify(kept.checks)).toContain('"actual":"delivered"');
      const denied = await runCli([
        "review",
        "deny",
        id,
        "--store",
        store,
        "--by",
        "ada",
        "--reason",
        "not this order",
      ]);
      expect(denied.code, denied.stderr).toBe(0);
      const again = await check(a.url, held);
      expect(again.status).toBe(200);
      expect((again.json as { decision: string }).decision).toBe("hold"); // the Decision is the CLI's
      expect([again.headers.get("tessera-action"), again.headers.get("tessera-review-id")]).toEqual(["refuse", id]);
      expect((await request(a.url, "GET", `/v1/reviews/${id}`)).json).toMatchObject({
        state: "denied",
        decided_by: "ada",
        decision_reason: "not this order",
      });
    } finally {
      await stop(a);
      t.cleanup();
    }
  });
});

const live = await pgReachable();
const SCHEMA = uniqueSchema("tessera_serve");

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live, "postgres at TESSERA_PG_URL must be reachable").toBe(true);
});

describe.skipIf(!live)("two instances on one Postgres store (live)", () => {
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await admin.end();
  });

  it("refuses a store that does not exist unless --create", async () => {
    const r = await runCli(["serve", "--policy", refundsPolicy, "--store", storeUrl(`${SCHEMA}_none`), "--port", "0"], {
      env: { TESSERA_SERVE_TOKEN: "a-token-of-twenty-chars" },
    });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/store_missing|--create/);
  });

  it("answers 503 store_unavailable, never a decision, when the store cannot record it", async () => {
    const schema = `${SCHEMA}_broken`;
    const store = storeUrl(schema);
    const p = await startServeProcess(["--policy", refundsPolicy, "--store", store, "--create"]);
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    try {
      expect((await check(p.url, held)).status).toBe(200);
      await admin.query(`DROP TABLE ${schema}.audit_events`);
      const refund = {
        tool: "refund_order",
        arguments: { order_id: 1001, amount_cents: 1 },
        context: { customer_id: "c-1" },
      };
      const got = await check(p.url, refund);
      expect(got.status).toBe(503);
      expect(got.headers.get("retry-after")).toBe("1");
      expect(got.headers.get("tessera-action")).toBeNull();
      const { error } = got.json as { error: { code: string; message: string } };
      expect(error.code).toBe("store_unavailable");
      expect(error.message).toMatch(/^\(store\): the decision could not be recorded: /);
    } finally {
      await stop(p);
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });

  it("hold through A, approve with tessera review, consume through B exactly once", async () => {
    const store = storeUrl(SCHEMA);
    const a = await startServeProcess(["--policy", refundsPolicy, "--store", store, "--create"]);
    const b = await startServeProcess(["--policy", refundsPolicy, "--store", store]);
    try {
      expect(a.stderr()).toContain("store postgres");
      await approveThenOnce(a, b, store);
    } finally {
      await stop(a);
      await stop(b);
    }
  });
});
