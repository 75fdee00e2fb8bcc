// The live Postgres server the gateway's store tests share: where it is, and whether it answers.
// With TESSERA_REQUIRE_LIVE=1 a missing TESSERA_PG_URL leaves PG_URL empty, so `live` is false and
// each test file's "reachable" test fails rather than skipping.
import { randomBytes } from "node:crypto";
import pg from "pg";

export const REQUIRE_LIVE = process.env.TESSERA_REQUIRE_LIVE === "1";
export const PG_URL = process.env.TESSERA_PG_URL ?? (REQUIRE_LIVE ? "" : "postgres://postgres@127.0.0.1:5432/test");

/** A schema name no other test file or run uses. */
export function uniqueSchema(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(3).toString("hex")}`;
}

/** The store URL of `schema` on the live server. */
export function storeUrl(schema: string): string {
  return `${PG_URL}${PG_URL.includes("?") ? "&" : "?"}schema=${schema}`;
}

/** Whether the live server accepts a connection within 3 s. */
export async function pgReachable(): Promise<boolean> {
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
