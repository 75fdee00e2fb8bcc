// The review store's contract, run against SQLite and (live) Postgres alike.
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPgReviewStore } from "../../src/review/postgres.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { NewHold, ReviewRecord, ReviewStore } from "../../src/review/types.js";
import { tempDir } from "./harness.js";
import { PG_URL, pgReachable, REQUIRE_LIVE, storeUrl, uniqueSchema } from "./live.js";
import { reviewStoreKinds } from "./store-kinds.js";

const SCHEMA = uniqueSchema("tessera_gw_store");
const live = await pgReachable();

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live).toBe(true);
});

const T0 = Date.parse("2026-11-30T05:00:00Z");
let n = 0;
/** A hold with a key no other test uses. */
const newHold = (ttl = 60_000, reviewTtl = 3_600_000): NewHold => ({
  tool: "refund_order",
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
  approval_ttl_ms: ttl,
  review_ttl_ms: reviewTtl,
});

const kinds = reviewStoreKinds("gw-store", SCHEMA, live);

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
    expect(a.review).toMatchObject({
      state: "pending",
      arguments: h.arguments,
      reasons: h.reasons,
      created_at: T0,
      expires_at: T0 + 3_600_000,
    });
    const other = await s.hold(newHold(), T0);
    expect(other.review.id).not.toBe(a.review.id);
    const elsewhere = await s.hold({ ...h, context_digest: "sha256:another-session" }, T0);
    expect(elsewhere.created).toBe(true);
    expect(elsewhere.review).toMatchObject({ context_digest: "sha256:another-session" });
  });

  it.runIf(enabled)("approves with the held TTL or an explicit one, and only once", async () => {
    const a = (await s.hold(newHold(30_000), T0)).review;
    expect(await s.approve(a.id, "ada", T0 + 10)).toMatchObject({
      state: "approved",
      decided_by: "ada",
      decided_at: T0 + 10,
      expires_at: T0 + 30_010,
    });
    await expect(s.approve(a.id, "ada", T0)).rejects.toMatchObject({
      code: "review_not_pending",
      message: `cannot approve review \`${a.id}\`: it is approved`,
    });
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
    expect(await s.consume({ ...h, context_digest: "sha256:another-session" }, T0)).toBeNull();
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
    expect((await s.list(T0)).filter((r) => r.id === a.id || r.id === b.id).map((r) => r.state)).toEqual([
      "denied",
      "denied",
    ]);
  });

  it.runIf(enabled)(
    "refuses an approval time past 366 days, which would expire past any date it can show",
    async () => {
      const a = (await s.hold(newHold(), T0)).review;
      await expect(s.approve(a.id, "ada", T0, 366 * 86_400_000 + 1)).rejects.toMatchObject({ code: "invalid_ttl" });
      await expect(s.approve(a.id, "ada", T0, 8_640_000_000_000_000)).rejects.toMatchObject({ code: "invalid_ttl" });
      expect((await s.get(a.id, T0))!.state).toBe("pending"); // nothing was approved
      expect((await s.approve(a.id, "ada", T0, 366 * 86_400_000)).expires_at).toBe(T0 + 366 * 86_400_000);
    },
  );

  it.runIf(enabled)(
    "keeps a denial's reason, trimmed; refuses a reason it would have to cut or that breaks lines",
    async () => {
      const a = (await s.hold(newHold(), T0)).review;
      expect(a.decision_reason).toBeNull();
      await expect(s.deny(a.id, "ada", T0, "x".repeat(501))).rejects.toMatchObject({ code: "invalid_reason" });
      await expect(s.deny(a.id, "ada", T0, "first\nsecond")).rejects.toMatchObject({ code: "invalid_reason" });
      expect((await s.get(a.id, T0))!.state).toBe("pending"); // a refused reason decides nothing
      const denied = await s.deny(a.id, "ada", T0, "  refunds over 100 need a manager  ");
      expect(denied).toMatchObject({ state: "denied", decision_reason: "refunds over 100 need a manager" });
      expect((await s.get(a.id, T0 + 1))!.decision_reason).toBe("refunds over 100 need a manager");
      const b = (await s.hold(newHold(), T0)).review;
      expect((await s.deny(b.id, "ada", T0, "   ")).decision_reason).toBeNull();
    },
  );

  it.runIf(enabled)("expires a pending call nobody decided in time; a repeat of the call is held anew", async () => {
    const h = newHold(60_000, 10_000);
    const a = (await s.hold(h, T0)).review;
    expect(a).toMatchObject({ state: "pending", expires_at: T0 + 10_000 });
    expect((await s.get(a.id, T0 + 9_999))!.state).toBe("pending");
    expect((await s.get(a.id, T0 + 10_000))!.state).toBe("expired"); // expires_at is exclusive
    expect((await s.list(T0 + 10_000, "pending")).some((r) => r.id === a.id)).toBe(false);
    expect((await s.list(T0 + 10_000, "expired")).some((r) => r.id === a.id)).toBe(true);
    await expect(s.approve(a.id, "ada", T0 + 10_000)).rejects.toMatchObject({
      code: "review_not_pending",
      message: `cannot approve review \`${a.id}\`: it is expired`,
    });
    await expect(s.deny(a.id, "ada", T0 + 10_000)).rejects.toMatchObject({
      code: "review_not_pending",
      message: `cannot deny review \`${a.id}\`: it is expired`,
    });
    expect(await s.consume(h, T0 + 10_000)).toBeNull();
    // the same call again: the stale review steps aside (stored as expired) and a new one is queued
    const b = await s.hold(h, T0 + 20_000);
    expect(b.created).toBe(true);
    expect(b.review).toMatchObject({ state: "pending", created_at: T0 + 20_000, expires_at: T0 + 30_000 });
    expect(b.review.id).not.toBe(a.id);
    expect((await s.get(a.id, T0))!.state).toBe("expired"); // stored, so an earlier clock does not revive it
    expect(await s.hold(h, T0 + 25_000)).toEqual({ review: b.review, created: false });
    // approved in time, the approval's own TTL runs from the approval
    expect(await s.approve(b.review.id, "ada", T0 + 29_999)).toMatchObject({
      state: "approved",
      expires_at: T0 + 89_999,
    });
    await expect(s.hold({ ...h, review_ttl_ms: 0 }, T0)).rejects.toMatchObject({
      code: "invalid_ttl",
      message: "review ttl must be a positive number of milliseconds, got `0`",
    });
  });

  it.runIf(enabled)("pins a tool at first sight and records a change once per new digest", async () => {
    const tool = `tool_${++n}`;
    expect(await s.pinnedDigest(tool)).toBeNull();
    expect(await s.seeTool(tool, "sha256:a", { d: "a" }, T0)).toEqual({
      status: "pinned",
      pinned_digest: "sha256:a",
      newly_changed: false,
    });
    expect(await s.seeTool(tool, "sha256:a", { d: "a" }, T0)).toEqual({
      status: "matches",
      pinned_digest: "sha256:a",
      newly_changed: false,
    });
    expect(await s.seeTool(tool, "sha256:b", { d: "b" }, T0 + 1)).toEqual({
      status: "changed",
      pinned_digest: "sha256:a",
      newly_changed: true,
    });
    expect(await s.seeTool(tool, "sha256:b", { d: "b" }, T0 + 2)).toEqual({
      status: "changed",
      pinned_digest: "sha256:a",
      newly_changed: false,
    });
    expect(await s.seeTool(tool, "sha256:c", { d: "c" }, T0 + 3)).toEqual({
      status: "changed",
      pinned_digest: "sha256:a",
      newly_changed: true,
    });
    expect(await s.pinnedDigest(tool)).toBe("sha256:a");
    // the reviewer saw b; c arrived since: approving b changes nothing, c stays pending
    await expect(s.approveTool(tool, "sha256:b", T0 + 4)).rejects.toMatchObject({
      code: "tool_digest_mismatch",
      message: expect.stringContaining("is sha256:c, not sha256:b"),
    });
    expect((await s.tools()).find((p) => p.tool === tool)).toMatchObject({
      digest: "sha256:a",
      pending_digest: "sha256:c",
    });
    expect(await s.pinnedDigest(tool)).toBe("sha256:a");
    const pin = await s.approveTool(tool, "sha256:c", T0 + 4);
    expect(pin).toEqual({
      tool,
      digest: "sha256:c",
      definition: { d: "c" },
      pinned_at: T0 + 4,
      pending_digest: null,
      pending_definition: null,
      changed_at: null,
    });
    expect(await s.seeTool(tool, "sha256:c", { d: "c" }, T0 + 5)).toMatchObject({ status: "matches" });
    await expect(s.approveTool(tool, "sha256:c", T0)).rejects.toMatchObject({ code: "tool_not_changed" });
    await expect(s.approveTool("never_seen", "sha256:c", T0)).rejects.toMatchObject({ code: "tool_not_pinned" });
  });
});

/** `fn` over a SQLite file first written by `sql` (an older release's schema and rows), removed afterwards. */
async function withOldSqlite(sql: string, fn: (file: string) => Promise<void>): Promise<void> {
  const { dir, cleanup } = tempDir("gw-store-old");
  try {
    const file = join(dir, "old.db");
    const db = new Database(file);
    db.exec(sql);
    db.close();
    await fn(file);
  } finally {
    cleanup();
  }
}

/** `fn` over a fresh Postgres schema first written by `sql(schema)`, dropped afterwards. */
async function withOldPg(
  prefix: string,
  sql: (schema: string) => string,
  fn: (schema: string, admin: pg.Client) => Promise<void>,
): Promise<void> {
  const schema = uniqueSchema(prefix);
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}; ${sql(schema)}`);
    await fn(schema, admin);
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
}

// The reviews table as it was before approvals were bound to the trusted context.
const UNBOUND_TABLE = (
  table: string,
  int: string,
) => `CREATE TABLE ${table} (id TEXT PRIMARY KEY, state TEXT NOT NULL, tool TEXT NOT NULL,
  arguments_digest TEXT NOT NULL, policy_digest TEXT NOT NULL, arguments_json TEXT NOT NULL, reasons_json TEXT NOT NULL,
  approval_ttl_ms ${int} NOT NULL, created_at ${int} NOT NULL, decided_at ${int}, decided_by TEXT, expires_at ${int}, consumed_at ${int});
  INSERT INTO ${table} VALUES ('rv_0000000000aa', 'approved', 't', 'sha256:a', 'sha256:p', '{}', '[]', 60000, 1, 2, 'ada', ${T0 + 60_000}, NULL);
  INSERT INTO ${table} VALUES ('rv_0000000000bb', 'pending', 't', 'sha256:b', 'sha256:p', '{}', '[]', 60000, 1, NULL, NULL, NULL, NULL);`;
const unboundKey = { tool: "t", arguments_digest: "sha256:b", policy_digest: "sha256:p", context_digest: "sha256:ctx" };

/** What every queue migrated from UNBOUND_TABLE must show. */
async function expectBound(s: ReviewStore): Promise<ReviewRecord> {
  expect((await s.get("rv_0000000000aa", T0))!).toMatchObject({ state: "approved", context_digest: "" });
  expect(
    await s.consume(
      { tool: "t", arguments_digest: "sha256:a", policy_digest: "sha256:p", context_digest: "sha256:ctx" },
      T0,
    ),
  ).toBeNull();
  // the old pending row no longer blocks a new pending review of the same call in a session
  const held = await s.hold(
    { ...unboundKey, arguments: {}, reasons: [], approval_ttl_ms: 1_000, review_ttl_ms: 60_000 },
    T0,
  );
  expect(held.created).toBe(true);
  return held.review;
}

describe("a SQLite queue written before approvals were bound to the trusted context", () => {
  it("opens, and an approval stored then is never used for any session", async () => {
    const sql = `${UNBOUND_TABLE("gateway_reviews", "INTEGER")}
      CREATE UNIQUE INDEX gateway_reviews_one_pending ON gateway_reviews (tool, arguments_digest, policy_digest) WHERE state = 'pending';`;
    await withOldSqlite(sql, async (file) => {
      const s = openSqliteReviewStore(file);
      try {
        await expectBound(s);
      } finally {
        await s.close();
      }
      const again = openSqliteReviewStore(file); // a second open of the migrated file changes nothing
      expect((await again.list(T0)).map((r) => r.id)).toContain("rv_0000000000aa");
      await again.close();
    });
  });
});

describe.runIf(live)("a Postgres queue written before approvals were bound to the trusted context", () => {
  it("migrates on open, and an approval stored then is never used for any session", async () => {
    const sql = (schema: string) => `${UNBOUND_TABLE(`${schema}.reviews`, "BIGINT")}
      CREATE UNIQUE INDEX reviews_one_pending ON ${schema}.reviews (tool, arguments_digest, policy_digest) WHERE state = 'pending';`;
    await withOldPg("tessera_gw_old", sql, async (schema) => {
      const [s, again] = await Promise.all([openPgReviewStore(storeUrl(schema)), openPgReviewStore(storeUrl(schema))]);
      try {
        const held = await expectBound(s);
        expect(
          await again.hold(
            { ...unboundKey, arguments: {}, reasons: [], approval_ttl_ms: 1_000, review_ttl_ms: 60_000 },
            T0,
          ),
        ).toEqual({ review: held, created: false });
      } finally {
        await s.close();
        await again.close();
      }
    });
  });
});

// The tables exactly as the release before pending reviews expired created them.
const DAY = 86_400_000;
const PREVIOUS_COLUMNS = `id TEXT PRIMARY KEY, state TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'denied', 'consumed')), tool TEXT NOT NULL,
  arguments_digest TEXT NOT NULL, policy_digest TEXT NOT NULL, context_digest TEXT NOT NULL DEFAULT '', arguments_json TEXT NOT NULL,
  reasons_json TEXT NOT NULL, approval_ttl_ms BIGINT NOT NULL, created_at BIGINT NOT NULL, decided_at BIGINT, decided_by TEXT,
  expires_at BIGINT, consumed_at BIGINT`;
const previousRows = (table: string) => `
  INSERT INTO ${table} VALUES ('rv_0000000000cc', 'pending', 't', 'sha256:c', 'sha256:p', 'sha256:ctx', '{}', '[]', 60000, ${T0 - DAY - 1}, NULL, NULL, NULL, NULL);
  INSERT INTO ${table} VALUES ('rv_0000000000dd', 'pending', 't', 'sha256:d', 'sha256:p', 'sha256:ctx', '{}', '[]', 60000, ${T0 - 3_600_000}, NULL, NULL, NULL, NULL);
  INSERT INTO ${table} VALUES ('rv_0000000000ee', 'consumed', 't', 'sha256:e', 'sha256:p', 'sha256:ctx', '{"a":1}', '[]', 60000, 1, 2, 'ada', 3, 4);`;
const staleKey = { tool: "t", arguments_digest: "sha256:c", policy_digest: "sha256:p", context_digest: "sha256:ctx" };

/** What every migrated queue must show: deadlines from when each call was held, and room for `expired`. */
async function expectMigrated(s: ReviewStore, storedState: () => Promise<string>): Promise<void> {
  expect((await s.get("rv_0000000000cc", T0))!).toMatchObject({ state: "expired", expires_at: T0 - 1 });
  expect((await s.get("rv_0000000000dd", T0))!).toMatchObject({ state: "pending", expires_at: T0 - 3_600_000 + DAY });
  expect((await s.get("rv_0000000000ee", T0))!).toMatchObject({
    state: "consumed",
    arguments: { a: 1 },
    decided_by: "ada",
    expires_at: 3,
    consumed_at: 4,
  });
  await expect(s.approve("rv_0000000000cc", "ada", T0)).rejects.toMatchObject({
    message: "cannot approve review `rv_0000000000cc`: it is expired",
  });
  const held = await s.hold(
    { ...staleKey, arguments: {}, reasons: [], approval_ttl_ms: 1_000, review_ttl_ms: 60_000 },
    T0,
  );
  expect(held.created).toBe(true);
  expect(await storedState()).toBe("expired");
}

describe("a SQLite queue written before pending reviews expired", () => {
  it("is rebuilt on open: old pending calls get a deadline from when they were held, and `expired` can be stored", async () => {
    const sql = `CREATE TABLE gateway_reviews (${PREVIOUS_COLUMNS});
      CREATE UNIQUE INDEX gateway_reviews_one_pending_call ON gateway_reviews (tool, arguments_digest, policy_digest, context_digest) WHERE state = 'pending';
      CREATE INDEX gateway_reviews_by_call_state ON gateway_reviews (tool, arguments_digest, policy_digest, context_digest, state);
      ${previousRows("gateway_reviews")}`;
    await withOldSqlite(sql, async (file) => {
      const s = openSqliteReviewStore(file);
      const read = new Database(file, { readonly: true });
      try {
        await expectMigrated(
          s,
          async () =>
            read.prepare("SELECT state FROM gateway_reviews WHERE id = 'rv_0000000000cc'").pluck().get() as string,
        );
        const indexes = read
          .prepare(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'gateway_reviews' AND sql IS NOT NULL ORDER BY name",
          )
          .pluck()
          .all();
        expect(indexes).toEqual([
          "gateway_reviews_by_call_state",
          "gateway_reviews_by_created",
          "gateway_reviews_by_state_created",
          "gateway_reviews_by_state_deadline",
          "gateway_reviews_one_pending_call",
        ]);
      } finally {
        read.close();
        await s.close();
      }
      const again = openSqliteReviewStore(file); // a second open changes nothing
      expect((await again.list(T0)).map((r) => r.id)).toHaveLength(4);
      await again.close();
    });
  });
});

describe.runIf(live)("a Postgres queue written before pending reviews expired", () => {
  it("migrates on open: old pending calls get a deadline from when they were held, and `expired` can be stored", async () => {
    await withOldPg(
      "tessera_gw_deadline",
      (schema) => `CREATE TABLE ${schema}.reviews (${PREVIOUS_COLUMNS}); ${previousRows(`${schema}.reviews`)}`,
      async (schema, admin) => {
        const [s, again] = await Promise.all([
          openPgReviewStore(storeUrl(schema)),
          openPgReviewStore(storeUrl(schema)),
        ]);
        try {
          await expectMigrated(
            s,
            async () =>
              (await admin.query(`SELECT state FROM ${schema}.reviews WHERE id = 'rv_0000000000cc'`)).rows[0]
                .state as string,
          );
          const checks = await admin.query(
            `SELECT conname FROM pg_constraint WHERE conrelid = '${schema}.reviews'::regclass AND contype = 'c'`,
          );
          expect(checks.rows.map((r) => r.conname)).toEqual(["reviews_state"]);
          expect(await again.list(T0)).toHaveLength(4);
        } finally {
          await s.close();
          await again.close();
        }
      },
    );
  });
});
