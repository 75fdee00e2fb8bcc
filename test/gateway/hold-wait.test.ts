// Holds that wait (`holdWait`, `tessera gateway --hold-wait`): the real gateway between the SDK's
// client and the counting upstream, decided from another handle on the store as `tessera review`
// would decide from another process. The client learns that its call waits from the first progress
// notification (which names the review), so no test waits for a while in the hope something happened.
import { join } from "node:path";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult, Progress } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/mcp/gateway/gateway.js";
import type { HoldWaitOptions } from "../../src/mcp/gateway/hold-wait.js";
import { approveReview, denyReview } from "../../src/review/actions.js";
import { openPgReviewStore } from "../../src/review/postgres.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import pg from "pg";
import { PG_URL, pgReachable, REQUIRE_LIVE, storeUrl, uniqueSchema } from "./live.js";
import type { ReviewStore } from "../../src/review/types.js";
import {
  counted,
  tempDir,
  TestClock,
  textOf,
  upstreamEnv,
  upstreamScript,
  verdictOf,
  startGateway,
} from "./harness.js";
import { type GatewayPolicy, openGatewayPolicy } from "./policy.js";

let dir: string;
let cleanup: () => void;
let clock: TestClock;
let policy: GatewayPolicy;
let reviews: ReviewStore;
let reviewer: ReviewStore;
let gateway: Gateway | undefined;
let client: Client | undefined;
const diagnostics: string[] = [];

const calls = () => counted(join(dir, "counter.jsonl"));

async function start(holdWait: HoldWaitOptions): Promise<void> {
  const running = await startGateway({
    dir,
    decide: policy.decide,
    describe: policy.describe,
    reviews,
    audit: policy.audit,
    clock,
    approvalTtlMs: 60_000,
    reviewTtlMs: 3_600_000,
    extra: {
      holdWait,
      onDiagnostic: (line) => diagnostics.push(line),
    },
  });
  gateway = running.gateway;
  client = running.client;
}

beforeEach(async () => {
  ({ dir, cleanup } = tempDir("gw-hold-wait"));
  clock = new TestClock();
  policy = await openGatewayPolicy(dir, clock.read);
  reviews = openSqliteReviewStore(join(dir, "gateway.db"));
  reviewer = openSqliteReviewStore(join(dir, "gateway.db"));
  diagnostics.length = 0;
});

afterEach(async () => {
  await client?.close();
  await gateway?.close();
  client = undefined;
  gateway = undefined;
  await reviews.close();
  await reviewer.close();
  await policy.close();
  cleanup();
});

/** A held call with progress: its result, and the review id its first progress notification names. */
function heldCall(args: Record<string, unknown>, signal?: AbortSignal) {
  const progress: Progress[] = [];
  let named!: (id: string) => void;
  const reviewId = new Promise<string>((resolve) => (named = resolve));
  const result = client!.callTool({ name: "refund_order", arguments: args }, undefined, {
    ...(signal ? { signal } : {}),
    onprogress: (p) => {
      progress.push(p);
      const id = /held for human review as (rv_[0-9a-f]{12})/.exec(p.message ?? "")?.[1];
      if (id !== undefined) named(id);
    },
  }) as Promise<CallToolResult>;
  return { result, reviewId, progress };
}

describe("a held call that waits", () => {
  it("is forwarded exactly once when approved within the wait, and returns the upstream's result", async () => {
    await start({ ms: 60_000, pollMs: 10 });
    const args = { order_id: policy.orders.held };
    const call = heldCall(args);
    const id = await call.reviewId;
    expect(calls()).toEqual([]);
    await approveReview(reviewer, policy.audit, id, "ada", clock.now);
    const r = await call.result;
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toBe(`refunded ${args.order_id}`);
    expect(verdictOf(r)).toMatchObject({ decision: "forward", review_id: id });
    expect(calls().map((c) => c.arguments)).toEqual([args]);
    expect((await reviews.get(id, clock.now))!.state).toBe("consumed");
    // decided twice under one call id: held, then forwarded on the approval
    const events = policy.events().filter((e) => e.type === "tessera.decision.v1");
    expect(events.map((e) => [e.action, e.review_id])).toEqual([
      ["hold", id],
      ["forward", id],
    ]);
    expect(calls()).toHaveLength(1);
  });

  it("sends progress notifications that rise while it waits, when the client sent a progress token", async () => {
    await start({ ms: 60_000, pollMs: 10, progressEveryMs: 20 });
    const call = heldCall({ order_id: policy.orders.held });
    const id = await call.reviewId;
    // wait for a second report (the first is at once), then decide
    while (call.progress.length < 2) await new Promise((resolve) => setImmediate(resolve));
    await denyReview(reviewer, policy.audit, id, "ada", clock.now, "no");
    await call.result;
    const values = call.progress.map((p) => p.progress);
    expect(values.length).toBeGreaterThanOrEqual(2);
    expect(values).toEqual(values.map((_, i) => i + 1));
    expect(call.progress[1]!.message).toContain(`still held as ${id}`);
  });

  it("answers with the reviewer's reason when denied within the wait", async () => {
    await start({ ms: 60_000, pollMs: 10 });
    const call = heldCall({ order_id: policy.orders.held });
    const id = await call.reviewId;
    await denyReview(reviewer, policy.audit, id, "ada", clock.now, "the customer already got a voucher");
    const r = await call.result;
    expect(r.isError).toBe(true);
    expect(verdictOf(r)).toMatchObject({ decision: "block", review_id: id });
    expect(verdictOf(r)!.codes[0]).toBe("review_denied");
    expect(textOf(r).split("\n")[0]).toBe("denied by ada: the customer already got a voucher");
    expect(calls()).toEqual([]);
  });

  it("returns as held when the wait ends first, and a later approval serves the repeated call as today", async () => {
    await start({ ms: 50, pollMs: 10 });
    const args = { order_id: policy.orders.held };
    const call = heldCall(args);
    const r = await call.result;
    const id = await call.reviewId;
    expect(verdictOf(r)).toMatchObject({ decision: "hold", review_id: id });
    expect(textOf(r)).toMatch(/^held for human review as rv_/);
    expect(calls()).toEqual([]);
    await approveReview(reviewer, policy.audit, id, "ada", clock.now);
    const again = await client!.callTool({ name: "refund_order", arguments: args });
    expect(verdictOf(again as CallToolResult)).toMatchObject({ decision: "forward", review_id: id });
    expect(calls()).toHaveLength(1);
  });

  it("forwards nothing after the client cancels, and an approval given after the cancel serves a later identical call", async () => {
    await start({ ms: 60_000, pollMs: 10 });
    const args = { order_id: policy.orders.held };
    const controller = new AbortController();
    const call = heldCall(args, controller.signal);
    const id = await call.reviewId;
    controller.abort();
    await expect(call.result).rejects.toThrow();
    // the cancellation went down the same pipe before this ping, so the gateway has acted on it
    await client!.ping();
    await new Promise((resolve) => setImmediate(resolve));
    expect(gateway!.holdsWaiting()).toBe(0);
    await approveReview(reviewer, policy.audit, id, "ada", clock.now);
    expect((await reviews.get(id, clock.now))!.state).toBe("approved");
    const later = await client!.callTool({ name: "refund_order", arguments: args });
    expect(verdictOf(later as CallToolResult)).toMatchObject({ decision: "forward", review_id: id });
    await gateway!.drain();
    expect(calls().map((c) => c.arguments)).toEqual([args]);
  });

  it("waits for at most `maxWaiting` calls at once: the next is answered as held at once", async () => {
    await start({ ms: 60_000, pollMs: 10, maxWaiting: 1 });
    const first = heldCall({ order_id: policy.orders.held });
    const id = await first.reviewId;
    expect(gateway!.holdsWaiting()).toBe(1);
    const second = heldCall({ order_id: policy.orders.held, request: "another" });
    const r = await second.result;
    expect(verdictOf(r)!.decision).toBe("hold");
    expect(verdictOf(r)!.review_id).not.toBe(id);
    expect(diagnostics.some((d) => d.includes("1 held calls are waiting already"))).toBe(true);
    // the first is still waiting: stopping the gateway answers it as held, nothing forwarded
    await gateway!.drain();
    expect(verdictOf(await first.result)).toMatchObject({ decision: "hold", review_id: id });
    expect(calls()).toEqual([]);
  });
});

const SCHEMA = uniqueSchema("tessera_gw_hold_wait");
const live = await pgReachable();

describe("a held call that waits on a Postgres store", () => {
  it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
    if (REQUIRE_LIVE) expect(live).toBe(true);
  });

  afterAll(async () => {
    if (!live) return;
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await admin.end();
  });

  it.runIf(live)("is forwarded once when another instance's handle approves it", async () => {
    await reviews.close();
    await reviewer.close();
    reviews = await openPgReviewStore(storeUrl(SCHEMA));
    reviewer = await openPgReviewStore(storeUrl(SCHEMA));
    await start({ ms: 60_000, pollMs: 10 });
    const args = { order_id: policy.orders.held };
    const call = heldCall(args);
    const id = await call.reviewId;
    await approveReview(reviewer, policy.audit, id, "ada", clock.now);
    expect(verdictOf(await call.result)).toMatchObject({ decision: "forward", review_id: id });
    expect(calls().map((c) => c.arguments)).toEqual([args]);
    expect((await reviewer.get(id, clock.now))!.state).toBe("consumed");
  });
});

it("createGateway refuses a hold wait it cannot keep, before it starts anything", async () => {
  const { dir: d, cleanup: done } = tempDir("gw-hold-wait-bad");
  const store = openSqliteReviewStore(join(d, "gateway.db"));
  try {
    for (const holdWait of [{ ms: 0 }, { ms: 10 * 60_000 + 1 }, { ms: 1_000, maxWaiting: 0 }]) {
      await expect(
        createGateway({
          upstream: {
            kind: "stdio",
            command: process.execPath,
            args: [upstreamScript],
            env: upstreamEnv(d),
            stderr: "ignore",
          },
          decide: async () => ({ decision: "allow", policy_digest: "sha256:p", checks: [] }),
          reviews: store,
          audit: { append: () => undefined, close: () => undefined },
          holdWait,
        }),
      ).rejects.toMatchObject({ code: "invalid_input" });
    }
    expect(counted(join(d, "counter.jsonl"))).toEqual([]);
  } finally {
    await store.close();
    done();
  }
});
