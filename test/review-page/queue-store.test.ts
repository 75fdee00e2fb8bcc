// What the review page reads from the store, on SQLite and (live) Postgres alike: `queue` gives
// exactly the page `list` then filter then slice would (the simple version, kept as the reference),
// `stamp` moves with every hold, decision, use and pin change and only then, a hold's explained
// checks come back as stored, and the page's denial never revokes an approval.
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import { type NewHold, REVIEW_STATES, type ReviewState, type ReviewStore } from "../../src/review/types.js";
import { tempDir } from "../gateway/harness.js";
import { pgReachable, REQUIRE_LIVE, uniqueSchema } from "../gateway/live.js";
import { reviewStoreKinds } from "../gateway/store-kinds.js";

const SCHEMA = uniqueSchema("tessera_review_queue");
const live = await pgReachable();
it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live).toBe(true);
});

const T0 = Date.parse("2026-11-30T05:00:00Z");
let n = 0;
const hold = (tool: string, reviewTtl: number): NewHold => ({
  tool,
  arguments_digest: `sha256:${(++n).toString(16).padStart(64, "0")}`,
  policy_digest: "sha256:policy",
  context_digest: "sha256:context",
  arguments: { order_id: n },
  reasons: [
    {
      kind: "needs_judgment",
      argument: "order_id",
      check: 1,
      source: "billing",
      status: "mismatch",
      codes: ["not_equal"],
      message: null,
    },
  ],
  approval_ttl_ms: 60_000,
  review_ttl_ms: reviewTtl,
  explained: {
    checks: [
      {
        argument: "order_id",
        check: 1,
        conditions: [{ column: "status", ok: false, expected: "delivered", actual: "shipped" }],
      },
    ],
    context_keys: ["customer_id"],
  },
});

const kinds = reviewStoreKinds("review-queue", SCHEMA, live);

describe.each(kinds)("the review page's reads over %s", (_name, open, enabled) => {
  let s: ReviewStore;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    if (!enabled) return;
    ({ store: s, dispose } = await open());
    // every state: pending (some expiring soon), approved, denied, consumed, approved then lapsed
    const ids: string[] = [];
    for (let i = 0; i < 40; i++) {
      const h = hold(i % 3 === 0 ? "cancel_order" : "refund_order", i % 7 === 0 ? 1_000 : 3_600_000);
      ids.push((await s.hold(h, T0 + i)).review.id);
      if (i % 5 === 1) await s.approve(ids[i]!, "ada", T0 + 100, 500);
      if (i % 5 === 2) await s.deny(ids[i]!, "bob", T0 + 100);
      if (i % 5 === 3) {
        await s.approve(ids[i]!, "ada", T0 + 100, 60_000);
        await s.consume(h, T0 + 200);
      }
    }
  });
  afterAll(async () => {
    if (enabled) await dispose();
  });

  it.skipIf(!enabled)("pages each state and tool exactly as list, filter and slice do", async () => {
    for (const now of [T0 + 300, T0 + 5_000]) {
      const all = await s.list(now);
      for (const state of [undefined, ...REVIEW_STATES] as (ReviewState | undefined)[])
        for (const tool of [undefined, "refund_order", "cancel_order", "nothing"])
          for (const [limit, offset] of [
            [7, 0],
            [7, 7],
            [50, 0],
            [3, 30],
            [5, 100],
          ] as const) {
            const want = all.filter(
              (r) => (state === undefined || r.state === state) && (tool === undefined || r.tool === tool),
            );
            const got = await s.queue(now, { ...(state ? { state } : {}), ...(tool ? { tool } : {}), limit, offset });
            const where = `${state} ${tool} ${limit}/${offset} at +${now - T0}`;
            expect(got.total, where).toBe(want.length);
            expect(got.reviews, where).toEqual(
              want.slice(offset, offset + limit).map((r) => ({ ...r, explained: null })),
            );
          }
    }
  });

  it.skipIf(!enabled)("keeps a hold's explained checks, and shows them by id", async () => {
    const [first] = (await s.queue(T0 + 300, { limit: 1, offset: 0 })).reviews;
    const r = await s.get(first!.id, T0 + 300);
    expect(r!.explained).toEqual(hold("x", 1).explained);
  });

  it.skipIf(!enabled)("refuses a bad page", async () => {
    await expect(s.queue(T0, { limit: 0, offset: 0 })).rejects.toThrow(/a queue page holds 1 to 500 reviews/);
    await expect(s.queue(T0, { limit: 501, offset: 0 })).rejects.toThrow(/a queue page holds 1 to 500/);
    await expect(s.queue(T0, { limit: 5, offset: -1 })).rejects.toThrow(/offset/);
    await expect(s.queue(T0, { state: "lost" as ReviewState, limit: 5, offset: 0 })).rejects.toThrow(
      /unknown review state/,
    );
  });

  it.skipIf(!enabled)("moves its stamp on every hold, decision, use and pin change, and only then", async () => {
    const a = await s.stamp();
    expect(await s.stamp()).toBe(a);
    const h = hold("refund_order", 3_600_000);
    const { review } = await s.hold(h, T0 + 1_000);
    const b = await s.stamp();
    expect(b).not.toBe(a);
    await s.approve(review.id, "ada", T0 + 1_001, 60_000);
    const c = await s.stamp();
    expect(c).not.toBe(b);
    await s.consume(h, T0 + 1_002);
    const d = await s.stamp();
    expect(d).not.toBe(c);
    await s.seeTool("stamped", "sha256:one", { name: "stamped" }, T0 + 1_003);
    const e = await s.stamp();
    expect(e).not.toBe(d);
    await s.seeTool("stamped", "sha256:two", { name: "stamped", description: "new" }, T0 + 1_004);
    const f = await s.stamp();
    expect(f).not.toBe(e);
    await s.approveTool("stamped", "sha256:two", T0 + 1_005);
    expect(await s.stamp()).not.toBe(f);
  });

  it.skipIf(!enabled)("denies with pendingOnly only a pending review, never an approval", async () => {
    const { review } = await s.hold(hold("refund_order", 3_600_000), T0 + 2_000);
    await s.approve(review.id, "ada", T0 + 2_001, 60_000);
    await expect(s.deny(review.id, "bob", T0 + 2_002, "late", { pendingOnly: true })).rejects.toMatchObject({
      code: "review_not_pending",
    });
    expect((await s.get(review.id, T0 + 2_003))!.state).toBe("approved");
    expect((await s.deny(review.id, "bob", T0 + 2_004, "revoked")).state).toBe("denied"); // the CLI's revoke stays
  });
});

describe("a SQLite queue from before holds kept their explanation", () => {
  it("gains the column in place, and its old rows read as not explained", async () => {
    const { dir, cleanup } = tempDir("review-migrate");
    try {
      const file = join(dir, "old.db");
      const fresh = openSqliteReviewStore(file);
      const { review } = await fresh.hold(hold("refund_order", 3_600_000), T0);
      await fresh.close();
      const db = new Database(file);
      db.exec("ALTER TABLE gateway_reviews DROP COLUMN explained_json");
      db.close();
      const migrated = openSqliteReviewStore(file);
      try {
        expect((await migrated.get(review.id, T0))!.explained).toBeNull();
        const { review: next } = await migrated.hold(hold("refund_order", 3_600_000), T0);
        expect((await migrated.get(next.id, T0))!.explained).not.toBeNull();
      } finally {
        await migrated.close();
      }
    } finally {
      cleanup();
    }
  });
});
