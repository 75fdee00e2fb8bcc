// The review store's contract, run against SQLite and (live) Postgres alike.
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPgReviewStore } from "../../src/review/postgres.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { NewHold, ReviewStore } from "../../src/review/types.js";
import { tempDir } from "./harness.js";

const REQUIRE_LIVE = process.env.TESSERA_REQUIRE_LIVE === "1";
const PG_URL = process.env.TESSERA_PG_URL ?? (REQUIRE_LIVE ? "" : "postgres://postgres@127.0.0.1:5432/test");
const SCHEMA = `tessera_gw_store_${process.pid}_${randomBytes(3).toString("hex")}`;

async function pgLive(): Promise<boolean> {
  if (PG_URL === "") return false;
  const c = new pg.Client({ connectionString: PG_URL, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}
const live = await pgLive();

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live).toBe(true);
});

const T0 = Date.parse("2026-11-30T05:00:00Z");
let n = 0;
/** A hold with a key no other test uses. */
const newHold = (ttl = 60_000): NewHold => ({
  tool: "refund_order",
  arguments_digest: `sha256:${(++n).toString(16).padStart(64, "0")}`,
  policy_digest: "sha256:policy",
  arguments: { order_id: n },
  reasons: [{ kind: "needs_judgment", argument: "order_id", check: 1, source: "billing", status: "mismatch", codes: ["not_equal"], message: null }],
  approval_ttl_ms: ttl,
});

const kinds: [string, () => Promise<{ store: ReviewStore; dispose: () => Promise<void> }>, boolean][] = [
  [
    "sqlite",
    async () => {
      const { dir, cleanup } = tempDir("gw-store");
      const store = openSqliteReviewStore(join(dir, "store.db"));
      return { store, dispose: async () => (await store.close(), cleanup()) };
    },
    true,
  ],
  [
    "postgres",
    async () => {
      const store = await openPgReviewStore(`${PG_URL}${PG_URL.includes("?") ? "&" : "?"}schema=${SCHEMA}`);
      return {
        store,
        dispose: async () => {
          await store.close();
          const admin = new pg.Client({ connectionString: PG_URL });
          await admin.connect();
          await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
          await admin.end();
        },
      };
    },
    live,
  ],
];

describe.each(kinds)("review store over %s", (_name, open, enabled) => {
  let s: ReviewStore;
  let dispose: () => Promise<void>;
  beforeAll(async () => {
    if (enabled) ({ store: s, dispose } = await open());
  });
  afterAll(async () => {
    if (enabled) await dispose();
  });

  it.runIf(enabled)("queues an identical pending call once", async () => {
    const h = newHold();
    const a = await s.hold(h, T0);
    const b = await s.hold(h, T0 + 5);
    expect(a.created).toBe(true);
    expect(b).toEqual({ review: a.review, created: false });
    expect(a.review).toMatchObject({ state: "pending", arguments: h.arguments, reasons: h.reasons, created_at: T0, expires_at: null });
    const other = await s.hold(newHold(), T0);
    expect(other.review.id).not.toBe(a.review.id);
  });

  it.runIf(enabled)("approves with the held TTL or an explicit one, and only once", async () => {
    const a = (await s.hold(newHold(30_000), T0)).review;
    expect(await s.approve(a.id, "ada", T0 + 10)).toMatchObject({ state: "approved", decided_by: "ada", decided_at: T0 + 10, expires_at: T0 + 30_010 });
    await expect(s.approve(a.id, "ada", T0)).rejects.toMatchObject({ code: "review_not_pending", message: `cannot approve review \`${a.id}\`: it is approved` });
    const b = (await s.hold(newHold(30_000), T0)).review;
    expect((await s.approve(b.id, "bo", T0, 1_000)).expires_at).toBe(T0 + 1_000);
    await expect(s.approve("rv_000000000000", "ada", T0)).rejects.toMatchObject({ code: "review_not_found" });
    const c = (await s.hold(newHold(), T0)).review;
    await expect(s.approve(c.id, "ada", T0, 0)).rejects.toMatchObject({ code: "invalid_ttl" });
    expect((await s.get(c.id, T0))!.state).toBe("pending");
  });

  it.runIf(enabled)("consumes a live approval exactly once, never an expired one", async () => {
    const h = newHold(1_000);
    const r = (await s.hold(h, T0)).review;
    expect(await s.consume(h, T0)).toBeNull(); // pending is not approved
    await s.approve(r.id, "ada", T0);
    expect(await s.consume({ ...h, policy_digest: "sha256:other" }, T0)).toBeNull();
    expect(await s.consume(h, T0 + 1_000)).toBeNull(); // expires_at is exclusive
    expect((await s.get(r.id, T0 + 1_000))!.state).toBe("expired");
    expect((await s.consume(h, T0 + 999))!).toMatchObject({ id: r.id, state: "consumed", consumed_at: T0 + 999 });
    expect(await s.consume(h, T0 + 999)).toBeNull();
  });

  it.runIf(enabled)("denies a pending call or an unused approval, nothing else", async () => {
    const h = newHold();
    const a = (await s.hold(h, T0)).review;
    expect(await s.deny(a.id, "ada", T0)).toMatchObject({ state: "denied", decided_by: "ada" });
    await expect(s.deny(a.id, "ada", T0)).rejects.toMatchObject({ code: "review_not_pending" });
    const b = (await s.hold(h, T0)).review; // a denied call held again is a new review
    expect(b.id).not.toBe(a.id);
    await s.approve(b.id, "ada", T0);
    expect((await s.deny(b.id, "bo", T0 + 1)).state).toBe("denied");
    expect(await s.consume(h, T0 + 2)).toBeNull();
    const pending = await s.list(T0, "pending");
    expect(pending.some((r) => r.id === a.id || r.id === b.id)).toBe(false);
    expect((await s.list(T0)).filter((r) => r.id === a.id || r.id === b.id).map((r) => r.state)).toEqual(["denied", "denied"]);
  });

  it.runIf(enabled)("pins a tool at first sight and records a change once per new digest", async () => {
    const tool = `tool_${++n}`;
    expect(await s.pinnedDigest(tool)).toBeNull();
    expect(await s.seeTool(tool, "sha256:a", { d: "a" }, T0)).toEqual({ status: "pinned", pinned_digest: "sha256:a", newly_changed: false });
    expect(await s.seeTool(tool, "sha256:a", { d: "a" }, T0)).toEqual({ status: "matches", pinned_digest: "sha256:a", newly_changed: false });
    expect(await s.seeTool(tool, "sha256:b", { d: "b" }, T0 + 1)).toEqual({ status: "changed", pinned_digest: "sha256:a", newly_changed: true });
    expect(await s.seeTool(tool, "sha256:b", { d: "b" }, T0 + 2)).toEqual({ status: "changed", pinned_digest: "sha256:a", newly_changed: false });
    expect(await s.seeTool(tool, "sha256:c", { d: "c" }, T0 + 3)).toEqual({ status: "changed", pinned_digest: "sha256:a", newly_changed: true });
    expect(await s.pinnedDigest(tool)).toBe("sha256:a");
    const pin = await s.approveTool(tool, T0 + 4);
    expect(pin).toEqual({ tool, digest: "sha256:c", definition: { d: "c" }, pinned_at: T0 + 4, pending_digest: null, pending_definition: null, changed_at: null });
    expect(await s.seeTool(tool, "sha256:c", { d: "c" }, T0 + 5)).toMatchObject({ status: "matches" });
    await expect(s.approveTool(tool, T0)).rejects.toMatchObject({ code: "tool_not_changed" });
    await expect(s.approveTool("never_seen", T0)).rejects.toMatchObject({ code: "tool_not_pinned" });
  });
});
