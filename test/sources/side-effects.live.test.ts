// The refused spellings of specs/policy.md's "Side-effect examples" are real calls: the live
// servers run each one, through the adapter, when lint is bypassed. So the deny-list refuses what
// the database would execute, not a spelling no server reads as a call.
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { placeholdersOf } from "../../src/checks/requests.js";
import type { Source } from "../../src/checks/source.js";
import { createMysqlSource } from "../../src/sources/mysql.js";
import { createPostgresSource } from "../../src/sources/postgres.js";
import { MYSQL_URL, mysqlReachable, never, PG_URL, pgReachable } from "./live.js";

const spec = readFileSync(new URL("../../specs/policy.md", import.meta.url), "utf8");
const section = spec.split("## Side-effect examples (pinned)")[1]!.split("\n## ")[0]!;
const rows = section
  .split("\n")
  .filter((l) => l.startsWith("| ") && !l.startsWith("|---"))
  .slice(1)
  .map((l) =>
    l
      .slice(2, -2)
      .split(" | ")
      .map((c) =>
        c
          .trim()
          .replace(/^``(.*)``$/, "$1")
          .replace(/^`(.*)`$/, "$1"),
      ),
  );
const refusedOf = (dialect: string) =>
  rows.filter(([d, , want]) => d === dialect && want !== "ok").map(([, query]) => query!);

async function runs(src: Source, query: string): Promise<string> {
  try {
    await src.prepare({ query }).run({ value: 1 }, never);
    return "ran";
  } catch (err) {
    return `${(err as { code?: string }).code}: ${(err as Error).message}`;
  }
}

const pgLive = await pgReachable();
describe.skipIf(!pgLive)("postgres (live)", () => {
  let src: Source;
  beforeAll(async () => {
    src = await createPostgresSource({ name: "billing", config: { url: PG_URL, pool_size: 1 }, baseDir: "/" });
  });
  afterAll(async () => {
    // ending the sessions releases the advisory locks and settings the rows took
    await src.close();
  });
  it.each(refusedOf("postgres"))("the server runs %s, and lint refuses it", async (query) => {
    expect(await runs(src, query)).toBe("ran");
    expect(placeholdersOf("postgres", { query }).problems.map((p) => p.code)).toContain("sql_not_read_only");
  });
  it("what they did outlasts the request's rolled-back transaction: the lock is still held", async () => {
    const q = src.prepare({
      query:
        "SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND %(value)s::int = 1",
    });
    expect((await q.run({ value: 1 }, never)).rows).toEqual([{ n: 1 }]);
  });
});

const myLive = await mysqlReachable();
describe.skipIf(!myLive)("mysql/mariadb (live)", () => {
  let src: Source;
  beforeAll(async () => {
    src = await createMysqlSource({ name: "billing", config: { url: MYSQL_URL, pool_size: 1 }, baseDir: "/" });
  });
  afterAll(async () => {
    await src.close();
  });
  // a "…" name is a call only under sql_mode ANSI_QUOTES, which the test server does not set
  it.each(refusedOf("mysql").filter((q) => !q.includes('"')))(
    "the server runs %s, and lint refuses it",
    async (query) => {
      const ran = await runs(src, query);
      // load_file of a file the server may not read is NULL, or binary data: either way it ran
      expect(ran === "ran" || ran.startsWith("column_type_unsupported")).toBe(true);
      expect(placeholdersOf("mysql", { query }).problems.map((p) => p.code)).toContain("sql_not_read_only");
    },
  );
});
