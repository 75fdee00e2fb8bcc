// The review store over each backend, for tests that run the same cases on SQLite and on the live
// Postgres server: a fresh store per describe block, and its files or schema gone afterwards.
import { join } from "node:path";
import pg from "pg";
import { openPgReviewStore } from "../../src/review/postgres.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { ReviewStore } from "../../src/review/types.js";
import { tempDir } from "./harness.js";
import { PG_URL, storeUrl } from "./live.js";

/** Drop `schema` from the live server. */
export async function dropSchema(schema: string): Promise<void> {
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  await admin.end();
}

/** An opened store and how to put it away. */
export type OpenStore = () => Promise<{ store: ReviewStore; dispose: () => Promise<void> }>;

/** `[name, open, enabled]` for `describe.each`: SQLite in a temporary folder, Postgres in `schema` when `live`. */
export function reviewStoreKinds(prefix: string, schema: string, live: boolean): [string, OpenStore, boolean][] {
  return [
    [
      "sqlite",
      async () => {
        const { dir, cleanup } = tempDir(prefix);
        const store = openSqliteReviewStore(join(dir, "store.db"));
        return { store, dispose: async () => (await store.close(), cleanup()) };
      },
      true,
    ],
    [
      "postgres",
      async () => {
        const store = await openPgReviewStore(storeUrl(schema));
        return { store, dispose: async () => (await store.close(), await dropSchema(schema)) };
      },
      live,
    ],
  ];
}
