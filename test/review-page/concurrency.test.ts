// Two reviewers decide one hold at once, each through their own page instance over one store (as
// several instances behind one page would): concurrent HTTP POSTs, one approving and one denying.
// Exactly one wins (303), the other gets 409 and a page naming who decided; the store and the audit
// log hold one decision. On SQLite and on the live Postgres server.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAuditLines } from "../../src/review/open.js";
import { loadReviewersFile } from "../../src/review/web/reviewers.js";
import { tempDir } from "../gateway/harness.js";
import pg from "pg";
import { PG_URL, pgReachable, REQUIRE_LIVE, storeUrl, uniqueSchema } from "../gateway/live.js";
import { holdRefund, openPage } from "./fixtures.js";
import { csrfOf, http } from "./harness.js";

const ALICE = "alice-token-0123456789";
const BOB = "bob-token-0123456789ab";
const ROUNDS = 12;
const { dir, cleanup } = tempDir("review-race");
afterAll(cleanup);
const reviewersFile = join(dir, "reviewers.json");
writeFileSync(reviewersFile, JSON.stringify({ alice: ALICE, bob: BOB }));

const live = await pgReachable();
it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live, "postgres at TESSERA_PG_URL must be reachable").toBe(true);
});

function race(kind: "sqlite" | "postgres", location: () => string) {
  describe(`two reviewers deciding one hold at once (${kind})`, () => {
    let a: Awaited<ReturnType<typeof openPage>>;
    let b: Awaited<ReturnType<typeof openPage>>;
    beforeAll(async () => {
      a = await openPage(location(), loadReviewersFile(reviewersFile));
      b = await openPage(location(), loadReviewersFile(reviewersFile));
    });
    afterAll(async () => {
      await a?.close();
      await b?.close();
    });

    it("gives one winner and a 409 naming the winner to the other", async () => {
      const as = (port: number, token: string) => ({
        authorization: `Bearer ${token}`,
        origin: `http://127.0.0.1:${port}`,
        "sec-fetch-site": "same-origin",
      });
      const alice = as(a.page.port, ALICE);
      const bob = as(b.page.port, BOB);
      const csrfA = csrfOf((await http(a.page.port, "GET", "/", alice)).body);
      const csrfB = csrfOf((await http(b.page.port, "GET", "/", bob)).body);
      const winners = { alice: 0, bob: 0 };
      for (let i = 0; i < ROUNDS; i++) {
        const r = await holdRefund(a.store, 500 + i, Date.now());
        const [approved, denied] = await Promise.all([
          http(a.page.port, "POST", `/reviews/${r.id}/approve`, alice, { csrf: csrfA }),
          http(b.page.port, "POST", `/reviews/${r.id}/deny`, bob, { csrf: csrfB, reason: "not this one" }),
        ]);
        expect([approved.status, denied.status].sort()).toEqual([303, 409]);
        const stored = (await a.store.reviews.get(r.id, Date.now()))!;
        const [winner, loser] = approved.status === 303 ? ["alice", denied] : ["bob", approved];
        winners[winner as "alice" | "bob"]++;
        expect(stored.state).toBe(winner === "alice" ? "approved" : "denied");
        expect(stored.decided_by).toBe(winner);
        expect(loser.body).toContain("Already decided");
        expect(loser.body).toContain(`by <strong>${winner}</strong>`);
        const decisions = (await readAuditLines(a.store.location))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((e) => e.review_id === r.id && (e.action === "approved" || e.action === "denied"));
        expect(decisions).toHaveLength(1);
        expect(decisions[0]!.reviewer).toBe(winner);
      }
      expect(winners.alice + winners.bob).toBe(ROUNDS);
    });
  });
}

race("sqlite", () => join(dir, "gateway.db"));
const schema = uniqueSchema("tessera_review_race");
describe.skipIf(!live)("postgres", () => {
  race("postgres", () => storeUrl(schema));
  afterAll(async () => {
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  });
});
