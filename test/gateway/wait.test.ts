// waitForDecision on SQLite and (live) Postgres: a wait on one store handle sees a decision made on
// another handle of the same store, as the gateway sees one made by `tessera review` or the page in
// another process; it ends with the pending review at its timeout, rejects on abort and leaves no
// timer behind. `latest` finds the newest review of a call (what a repeated call is refused by).
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveReview, denyReview } from "../../src/review/actions.js";
import { waitForDecision } from "../../src/review/index.js";
import { pollDecision } from "../../src/review/wait.js";
import { openPgReviewStore } from "../../src/review/postgres.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { NewHold, ReviewStore } from "../../src/review/types.js";
import { tempDir } from "./harness.js";
import { pgReachable, REQUIRE_LIVE, storeUrl, uniqueSchema } from "./live.js";
import { dropSchema } from "./store-kinds.js";

const SCHEMA = uniqueSchema("tessera_gw_wait");
const live = await pgReachable();

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live).toBe(true);
});

let n = 0;
const hold = (): NewHold => ({
  tool: "refund_order",
  arguments_digest: `sha256:${(++n).toString(16).padStart(64, "0")}`,
  policy_digest: "sha256:policy",
  effective_digest: "",
  context_digest: "sha256:context",
  arguments: { order_id: n },
  reasons: [],
  approval_ttl_ms: 60_000,
  review_ttl_ms: 3_600_000,
});
const noAudit = { append: () => undefined };

/** Two handles on one store: the waiter's and the reviewer's. */
type Pair = { waiter: ReviewStore; reviewer: ReviewStore; dispose: () => Promise<void> };

const kinds: [string, () => Promise<Pair>, boolean][] = [
  [
    "sqlite",
    async () => {
      const { dir, cleanup } = tempDir("gw-wait");
      const file = join(dir, "store.db");
      const waiter = openSqliteReviewStore(file);
      const reviewer = openSqliteReviewStore(file);
      return { waiter, reviewer, dispose: async () => (await waiter.close(), await reviewer.close(), cleanup()) };
    },
    true,
  ],
  [
    "postgres",
    async () => {
      const waiter = await openPgReviewStore(storeUrl(SCHEMA));
      const reviewer = await openPgReviewStore(storeUrl(SCHEMA));
      return {
        waiter,
        reviewer,
        async dispose() {
          await waiter.close();
          await reviewer.close();
          await dropSchema(SCHEMA);
        },
      };
    },
    live,
  ],
];

/** A read of the store that tells when the waiter has read it `count` times. */
function countingReads(store: ReviewStore, count: number): { store: ReviewStore; reached: Promise<void> } {
  let reads = 0;
  let reach!: () => void;
  const reached = new Promise<void>((resolve) => (reach = resolve));
  const wrapped: ReviewStore = {
    ...store,
    get: async (id, now) => {
      const r = await store.get(id, now);
      if (++reads === count) reach();
      return r;
    },
    waitForDecision: (id, options) => pollDecision(wrapped.get, id, options),
  };
  return { store: wrapped, reached };
}

describe.each(kinds)("waitForDecision over %s", (_name, open, enabled) => {
  let p: Pair;
  beforeAll(async () => {
    if (enabled) p = await open();
  });
  afterAll(async () => {
    if (enabled) await p.dispose();
  });

  it.runIf(enabled)("resolves to the approval another handle gave", async () => {
    const { review } = await p.waiter.hold(hold(), Date.now());
    const waiting = p.waiter.waitForDecision(review.id, { timeoutMs: 60_000, intervalMs: 10 });
    await approveReview(p.reviewer, noAudit, review.id, "ada", Date.now());
    expect(await waiting).toMatchObject({ id: review.id, state: "approved", decided_by: "ada" });
  });

  it.runIf(enabled)("resolves to the denial, with its reason, through the exported function", async () => {
    const { review } = await p.waiter.hold(hold(), Date.now());
    const waiting = waitForDecision(p.waiter, review.id, { timeoutMs: 60_000, intervalMs: 10 });
    await denyReview(p.reviewer, noAudit, review.id, "bo", Date.now(), "refunds over 100 need a ticket");
    expect(await waiting).toMatchObject({
      state: "denied",
      decided_by: "bo",
      decision_reason: "refunds over 100 need a ticket",
    });
  });

  it.runIf(enabled)("resolves to the pending review when the timeout comes first", async () => {
    const { review } = await p.waiter.hold(hold(), Date.now());
    const got = await p.waiter.waitForDecision(review.id, { timeoutMs: 30, intervalMs: 10 });
    expect(got).toMatchObject({ id: review.id, state: "pending" });
  });

  it.runIf(enabled)("ends with an expired review nobody decided, judged by the injected clock", async () => {
    const now = Date.parse("2026-11-30T05:00:00Z");
    const { review } = await p.waiter.hold(hold(), now);
    const got = await p.waiter.waitForDecision(review.id, { timeoutMs: 60_000, clock: () => now + 3_600_000 });
    expect(got.state).toBe("expired");
  });

  it.runIf(enabled)("rejects on abort, between reads, with the signal's reason", async () => {
    const { review } = await p.waiter.hold(hold(), Date.now());
    const { store, reached } = countingReads(p.waiter, 1);
    const controller = new AbortController();
    const waiting = waitForDecision(store, review.id, {
      timeoutMs: 60_000,
      intervalMs: 5_000,
      signal: controller.signal,
    });
    await reached;
    controller.abort(new Error("the client went away"));
    await expect(waiting).rejects.toThrow("the client went away");
    expect((await p.reviewer.get(review.id, Date.now()))!.state).toBe("pending");
  });

  it.runIf(enabled)(
    "rejects at once for a signal already aborted, and for an unknown id or a bad timeout",
    async () => {
      const { review } = await p.waiter.hold(hold(), Date.now());
      await expect(
        p.waiter.waitForDecision(review.id, { timeoutMs: 1_000, signal: AbortSignal.abort() }),
      ).rejects.toMatchObject({ name: "AbortError" });
      await expect(p.waiter.waitForDecision("rv_000000000000", { timeoutMs: 1_000 })).rejects.toMatchObject({
        code: "review_not_found",
      });
      await expect(p.waiter.waitForDecision(review.id, { timeoutMs: 0 })).rejects.toMatchObject({
        code: "invalid_input",
      });
    },
  );

  it.runIf(enabled)("latest is the newest review of exactly the call", async () => {
    const h = hold();
    const key = {
      tool: h.tool,
      arguments_digest: h.arguments_digest,
      policy_digest: h.policy_digest,
      effective_digest: "",
      context_digest: h.context_digest,
    };
    const t = Date.parse("2026-11-30T05:00:00Z");
    expect(await p.waiter.latest(key, t)).toBeNull();
    const first = (await p.waiter.hold(h, t)).review;
    await denyReview(p.reviewer, noAudit, first.id, "ada", t + 1, "no");
    expect(await p.waiter.latest(key, t + 2)).toMatchObject({ id: first.id, state: "denied", decision_reason: "no" });
    const second = (await p.waiter.hold(h, t + 3)).review;
    expect(second.id).not.toBe(first.id);
    expect((await p.waiter.latest(key, t + 4))!.id).toBe(second.id);
    expect(await p.waiter.latest({ ...key, context_digest: "sha256:other" }, t + 4)).toBeNull();
  });
});

it("an aborted wait leaves no timer behind", async () => {
  const { dir, cleanup } = tempDir("gw-wait-timers");
  const store = openSqliteReviewStore(join(dir, "store.db"));
  // the real setTimeout, watched: the timers the wait's own code (src/review/wait.ts) makes
  const real = globalThis.setTimeout;
  const made: NodeJS.Timeout[] = [];
  globalThis.setTimeout = ((...args: Parameters<typeof setTimeout>) => {
    const t = real(...args);
    if (new Error().stack?.includes("review/wait.ts")) made.push(t);
    return t;
  }) as typeof setTimeout;
  try {
    const { review } = await store.hold(hold(), Date.now());
    const { store: counting, reached } = countingReads(store, 1);
    const controller = new AbortController();
    const waiting = counting.waitForDecision(review.id, {
      timeoutMs: 60_000,
      intervalMs: 5_000,
      signal: controller.signal,
    });
    await reached;
    await new Promise((resolve) => setImmediate(resolve)); // the read's answer reached the wait
    const destroyed = () => made.map((t) => (t as unknown as { _destroyed: boolean })._destroyed);
    expect(destroyed()).toEqual([false]); // the pause between reads
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ name: "AbortError" });
    expect(destroyed()).toEqual([true]);
  } finally {
    globalThis.setTimeout = real;
    await store.close();
    cleanup();
  }
});
