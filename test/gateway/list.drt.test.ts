// Listing and counting reviews in the store (a state's SQL condition over its indexes, pages by
// `after` and `limit`) against the naive reference the stores used before: load every row, read
// each with `reviewOf`, filter by state in JS. Over a million generated rows in SQLite and 20,000
// in Postgres, at times that fall exactly on deadlines, so every row whose stored state differs from
// how it reads (pending and approved past their deadline, approvals without one) is compared.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openPgReviewStore } from "../../src/review/postgres.js";
import { type ReviewRow, reviewOf } from "../../src/review/records.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import { REVIEW_STATES, type ReviewRecord, type ReviewState, type ReviewStore } from "../../src/review/types.js";
import { cliPath, tempDir } from "./harness.js";
import { DAY, pgHistory, sqliteHistory } from "./history.js";
import { PG_URL, pgReachable, REQUIRE_LIVE, storeUrl, uniqueSchema } from "./live.js";

const NOW = Date.parse("2026-12-01T00:00:00Z");
const STATES: readonly (ReviewState | undefined)[] = [...REVIEW_STATES, undefined];
const name = (s: ReviewState | undefined) => s ?? "every state";

/** The last row of history.ts's rows 1…n of kind k (i % 20 = k), as generated at `generatedAt`. */
const createdOf = (n: number, generatedAt: number, k: number) => generatedAt - (n - (n - ((n - k) % 20))) * 1000;
/**
 * When to list: exactly on the deadline of the last pending row with an expiry (kind 15), of the
 * last without one (16, deadline a day after it was held) and of the last minute-long approval (17),
 * then when the history was generated and three days before.
 */
function timesOf(n: number, generatedAt: number): number[] {
  return [
    createdOf(n, generatedAt, 15) + DAY,
    createdOf(n, generatedAt, 16) + DAY,
    createdOf(n, generatedAt, 17) + 60_000,
    generatedAt,
    generatedAt - 3 * DAY,
  ];
}

/** The reference: every row, oldest first, read with reviewOf; the ids of each state at each time. */
function naiveIds(rows: Iterable<ReviewRow>, times: readonly number[]): Map<string, string[]> {
  const ids = new Map<string, string[]>();
  for (const t of times) for (const s of STATES) ids.set(`${t}/${name(s)}`, []);
  for (const row of rows) {
    for (const t of times) {
      const record = reviewOf(row, t);
      ids.get(`${t}/${record.state}`)!.push(record.id);
      ids.get(`${t}/every state`)!.push(record.id);
    }
  }
  return ids;
}

/** The rows on a deadline read as their stored state a millisecond before it, and as `expired` on it. */
async function expectDeadlinesCovered(
  n: number,
  generatedAt: number,
  byId: (id: string) => Promise<ReviewRow> | ReviewRow,
): Promise<void> {
  const [t15, t16, t17] = timesOf(n, generatedAt);
  for (const [k, t, before] of [
    [15, t15, "pending"],
    [16, t16, "pending"],
    [17, t17, "approved"],
  ] as const) {
    const i = n - ((n - k) % 20);
    const row = await byId(`rv_${i.toString(16).padStart(12, "0")}`);
    expect([reviewOf(row, t! - 1).state, reviewOf(row, t!).state]).toEqual([before, "expired"]);
  }
}

/**
 * Compare every count, pages from the start, the middle and the end, and the full listing of the
 * states `full` names (a million rows: the states a reviewer lists; fewer: every state).
 */
async function compare(
  store: ReviewStore,
  times: readonly number[],
  reference: Map<string, string[]>,
  byId: (id: string) => Promise<ReviewRow> | ReviewRow,
  full: (s: ReviewState | undefined) => boolean = () => true,
): Promise<void> {
  const read = async (ids: readonly string[], t: number) =>
    Promise.all(ids.map(async (id) => reviewOf(await byId(id), t)));
  for (const t of times) {
    for (const s of STATES) {
      const want = reference.get(`${t}/${name(s)}`)!;
      expect(await store.count(t, s), `count ${name(s)} at ${t}`).toBe(want.length);
      if (full(s)) expect(await store.list(t, s), `list ${name(s)} at ${t}`).toEqual(await read(want, t));
      expect(await store.list(t, s, { limit: 100 }), `first page ${name(s)} at ${t}`).toEqual(
        await read(want.slice(0, 100), t),
      );
      if (want.length === 0) continue;
      const mid = want.length >> 1;
      expect(await store.list(t, s, { limit: 57, after: want[mid]! }), `middle page ${name(s)} at ${t}`).toEqual(
        await read(want.slice(mid + 1, mid + 58), t),
      );
      expect(await store.list(t, s, { after: want[want.length - 3]! })).toEqual(await read(want.slice(-2), t));
      expect(await store.list(t, s, { after: want.at(-1)!, limit: 5 })).toEqual([]);
    }
  }
}

/** Walk every page of every listing and compare the records with the reference's. */
async function walk(
  store: ReviewStore,
  times: readonly number[],
  reference: Map<string, string[]>,
  byId: (id: string) => Promise<ReviewRow> | ReviewRow,
) {
  for (const t of times) {
    for (const s of STATES) {
      const got: ReviewRecord[] = [];
      for (let page = await store.list(t, s, { limit: 997 }); page.length > 0; ) {
        got.push(...page);
        page = await store.list(t, s, { limit: 997, after: page.at(-1)!.id });
      }
      const want = reference.get(`${t}/${name(s)}`)!;
      expect(got, `every page of ${name(s)} at ${t}`).toEqual(
        await Promise.all(want.map(async (id) => reviewOf(await byId(id), t))),
      );
    }
  }
}

describe("a SQLite store of a million past reviews", () => {
  let dir: string;
  let cleanup: () => void;
  let file: string;
  let db: Database.Database;
  let store: ReviewStore;
  let reference: Map<string, string[]>;
  // on the deadline of the last pending row with an expiry, and when the history was generated
  const times = timesOf(1_000_000, NOW).filter((_, k) => k === 0 || k === 3);
  beforeAll(() => {
    ({ dir, cleanup } = tempDir("gw-list"));
    file = join(dir, "gateway.db");
    openSqliteReviewStore(file).close();
    db = new Database(file);
    db.exec(sqliteHistory(1_000_000, NOW));
    reference = naiveIds(
      db.prepare("SELECT * FROM gateway_reviews ORDER BY created_at, id").iterate() as Iterable<ReviewRow>,
      times,
    );
    store = openSqliteReviewStore(file);
  }, 300_000);
  afterAll(async () => {
    await store?.close();
    db?.close();
    cleanup();
  });
  const byId = (id: string) => db.prepare("SELECT * FROM gateway_reviews WHERE id = ?").get(id) as ReviewRow;

  it("the generated history has rows of every state at both times, and rows on each kind of deadline", async () => {
    for (const s of REVIEW_STATES) expect(times.map((t) => reference.get(`${t}/${s}`)!.length)).not.toContain(0);
    await expectDeadlinesCovered(1_000_000, NOW, byId);
  });

  it("counts, lists and pages exactly as loading every row and filtering did", async () => {
    await compare(store, times, reference, byId, (s) => s === "pending" || s === "approved");
  }, 300_000);

  it("refuses a page after a review it does not hold, and a limit that is not a positive whole number", async () => {
    await expect(store.list(NOW, "pending", { after: "rv_nope" })).rejects.toMatchObject({ code: "review_not_found" });
    await expect(store.list(NOW, "pending", { limit: 0 })).rejects.toMatchObject({ code: "invalid_limit" });
    await expect(store.list(NOW, "pending", { limit: 1.5 })).rejects.toMatchObject({ code: "invalid_limit" });
  });
});

describe("a SQLite store of 10,000 past reviews", () => {
  it("gives every page of every listing, in order, as the reference's records", async () => {
    const { dir, cleanup } = tempDir("gw-list-pages");
    const file = join(dir, "gateway.db");
    openSqliteReviewStore(file).close();
    const db = new Database(file);
    db.exec(sqliteHistory(10_000, NOW - 2 * DAY));
    const times = timesOf(10_000, NOW - 2 * DAY);
    const reference = naiveIds(
      db.prepare("SELECT * FROM gateway_reviews ORDER BY created_at, id").all() as ReviewRow[],
      times,
    );
    const store = openSqliteReviewStore(file);
    try {
      await walk(
        store,
        times,
        reference,
        (id) => db.prepare("SELECT * FROM gateway_reviews WHERE id = ?").get(id) as ReviewRow,
      );
    } finally {
      await store.close();
      db.close();
      cleanup();
    }
  }, 300_000);
});

describe("a SQLite store written before the listing indexes", () => {
  it("gains them on open, once, while several processes open it at the same time", async () => {
    const { dir, cleanup } = tempDir("gw-list-migrate");
    try {
      const file = join(dir, "gateway.db");
      openSqliteReviewStore(file).close();
      const db = new Database(file);
      db.exec(sqliteHistory(200_000, NOW));
      for (const index of ["by_state_deadline", "by_state_created", "by_created"])
        db.exec(`DROP INDEX gateway_reviews_${index}`);
      const before = db.prepare("SELECT count(*) FROM gateway_reviews").pluck().get();
      db.close();
      const run = promisify(execFile);
      const lists = await Promise.all(
        Array.from({ length: 4 }, () =>
          run(process.execPath, [cliPath, "review", "list", "--all", "--limit", "2", "--json", "--store", file], {
            cwd: dir,
          }),
        ),
      );
      for (const r of lists) expect(r.stdout).toBe(lists[0]!.stdout);
      // stdout is the page alone; stderr counts the listing and names the next page's cursor
      for (const r of lists)
        expect(r.stderr).toBe("showing 2 of 200000 reviews; the next page: --after rv_000000000002\n");
      expect((JSON.parse(lists[0]!.stdout) as { id: string }[]).map((r) => r.id)).toEqual([
        "rv_000000000001",
        "rv_000000000002",
      ]);
      const after = new Database(file, { readonly: true });
      const indexes = after
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
      expect(after.prepare("SELECT count(*) FROM gateway_reviews").pluck().get()).toBe(before);
      expect(after.pragma("integrity_check", { simple: true })).toBe("ok");
      after.close();
    } finally {
      cleanup();
    }
  }, 120_000);
});

const live = await pgReachable();

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live).toBe(true);
});

describe.runIf(live)("a Postgres store of 20,000 past reviews", () => {
  const schema = uniqueSchema("tessera_gw_list");
  let admin: pg.Client;
  let store: ReviewStore;
  let reference: Map<string, string[]>;
  const generatedAt = NOW - 4 * DAY - DAY / 2;
  const times = timesOf(20_000, generatedAt);
  // the reference's rows, read once (the naive path loaded them all too)
  const rows = new Map<string, ReviewRow>();
  const byId = (id: string) => rows.get(id)!;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await (await openPgReviewStore(storeUrl(schema))).close();
    await admin.query(pgHistory(schema, 20_000, generatedAt));
    await admin.query(`ANALYZE ${schema}.reviews`);
    const all = (await admin.query<ReviewRow>(`SELECT * FROM ${schema}.reviews ORDER BY created_at, id`)).rows;
    for (const row of all) rows.set(row.id, row);
    reference = naiveIds(all, times);
    store = await openPgReviewStore(storeUrl(schema));
  }, 300_000);
  afterAll(async () => {
    await store?.close();
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  it("counts, lists and pages exactly as loading every row and filtering did", async () => {
    // every state at some time (a history of hours has no pending row left a day later)
    for (const s of REVIEW_STATES)
      expect(Math.max(...times.map((t) => reference.get(`${t}/${s}`)!.length))).toBeGreaterThan(0);
    await expectDeadlinesCovered(20_000, generatedAt, byId);
    await compare(store, times, reference, byId);
  }, 300_000);

  it("gives every page of every listing, in order, as the reference's records", async () => {
    await walk(store, times, reference, byId);
  }, 300_000);

  it("refuses a page after a review it does not hold, and a limit that is not a positive whole number", async () => {
    await expect(store.list(NOW, "pending", { after: "rv_nope" })).rejects.toMatchObject({ code: "review_not_found" });
    await expect(store.list(NOW, "pending", { limit: -1 })).rejects.toMatchObject({ code: "invalid_limit" });
  });
});
