// Reading the audit log by type and page (conditions of the query) against the naive reference the
// readers used before: read every event, oldest first, filter by type and cut the page in JS. Over
// 100,000 generated events in SQLite (and 20,000 in Postgres), and through `tessera audit export`.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readAuditEvents } from "../../src/audit/log.js";
import type { AuditQuery } from "../../src/audit/query.js";
import { openGatewayStore, readAuditLines } from "../../src/review/open.js";
import { cliPath, tempDir } from "./harness.js";
import { PG_URL, pgReachable, REQUIRE_LIVE, storeUrl, uniqueSchema } from "./live.js";

const TYPES = ["tessera.decision.v1", "tessera.forward.v1", "tessera.review.v1"];
const idOf = (i: number) => `00000000-0000-4000-8000-${i.toString(16).padStart(12, "0")}`;

/** Event i (1…n) as history.ts's reviews are: one statement, its type cycling through TYPES (3:2:1). */
const eventSql = (hex: string) =>
  `'00000000-0000-4000-8000-' || ${hex}, CASE WHEN i % 6 < 3 THEN '${TYPES[0]}' WHEN i % 6 < 5 THEN '${TYPES[1]}' ELSE '${TYPES[2]}' END, '2026-12-01T00:00:00.000Z'`;
const bodySql = (hex: string) =>
  `'{"type":"' || CASE WHEN i % 6 < 3 THEN '${TYPES[0]}' WHEN i % 6 < 5 THEN '${TYPES[1]}' ELSE '${TYPES[2]}' END || '","id":"00000000-0000-4000-8000-' || ${hex} || '","at":"2026-12-01T00:00:00.000Z","n":' || i || '}'`;

/** The naive reference: every line, cut after the cursor's event, filtered by type and limited in JS. */
function naive(all: readonly string[], q: AuditQuery): string[] {
  let lines = q.after === undefined ? [...all] : all.slice(all.findIndex((l) => l.includes(`"id":"${q.after}"`)) + 1);
  if (q.type !== undefined) lines = lines.filter((l) => (JSON.parse(l) as { type: string }).type === q.type);
  return q.limit === undefined ? lines : lines.slice(0, q.limit);
}

/** Queries of every shape: each type and none, pages from the start, the middle, the end and past it. */
function queries(n: number): AuditQuery[] {
  const out: AuditQuery[] = [];
  for (const type of [undefined, ...TYPES])
    for (const after of [undefined, idOf(1), idOf(n >> 1), idOf(n - 1), idOf(n)])
      for (const limit of [undefined, 1, 250])
        out.push({
          ...(type === undefined ? {} : { type }),
          ...(after === undefined ? {} : { after }),
          ...(limit === undefined ? {} : { limit }),
        });
  return out;
}

describe("a SQLite audit log of 100,000 events", () => {
  const N = 100_000;
  let cleanup: () => void;
  let file: string;
  let all: string[];
  beforeAll(async () => {
    let dir: string;
    ({ dir, cleanup } = tempDir("gw-audit-query"));
    file = join(dir, "gateway.db");
    await (await openGatewayStore(file)).close();
    const db = new Database(file);
    db.exec(`WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ${N})
      INSERT INTO audit_events (id, type, at, body) SELECT ${eventSql("printf('%012x', i)")}, ${bodySql("printf('%012x', i)")} FROM seq`);
    db.close();
    all = readAuditEvents(file).map((e) => JSON.stringify(e));
  }, 120_000);
  afterAll(() => cleanup());

  it("reads by type and page exactly as reading every event and filtering did", async () => {
    expect(all).toHaveLength(N);
    for (const q of queries(N)) expect(await readAuditLines(file, q), JSON.stringify(q)).toEqual(naive(all, q));
    expect(readAuditEvents(file, TYPES[2]!)).toEqual(naive(all, { type: TYPES[2]! }).map((l) => JSON.parse(l)));
  }, 120_000);

  it("refuses a page after an event it does not hold", async () => {
    await expect(readAuditLines(file, { after: "nope" })).rejects.toMatchObject({ code: "audit_event_not_found" });
  });

  it("`tessera audit export` prints the page the reference cuts", async () => {
    const run = promisify(execFile);
    const q = { type: TYPES[1]!, after: idOf(N >> 1), limit: 3 };
    const r = await run(process.execPath, [
      cliPath,
      "audit",
      "export",
      "--jsonl",
      "--store",
      file,
      "--type",
      q.type,
      "--after",
      q.after,
      "--limit",
      "3",
    ]);
    expect(r.stdout).toBe(
      naive(all, q)
        .map((l) => `${l}\n`)
        .join(""),
    );
    expect(r.stdout.split("\n")).toHaveLength(4);
  });
});

const live = await pgReachable();

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live).toBe(true);
});

describe.runIf(live)("a Postgres audit log of 20,000 events", () => {
  const N = 20_000;
  const schema = uniqueSchema("tessera_gw_audit_query");
  const url = storeUrl(schema);
  let admin: pg.Client;
  let all: string[];
  beforeAll(async () => {
    await (await openGatewayStore(url)).close();
    admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    const hex = "lpad(to_hex(i), 12, '0')";
    await admin.query(`INSERT INTO ${schema}.audit_events (id, type, at, event)
      SELECT ${eventSql(hex)}, ${bodySql(hex)} FROM generate_series(1, ${N}) AS g(i)`);
    all = await readAuditLines(url);
  }, 120_000);
  afterAll(async () => {
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  });

  it("reads by type and page exactly as reading every event and filtering did", async () => {
    expect(all).toHaveLength(N);
    for (const q of queries(N)) expect(await readAuditLines(url, q), JSON.stringify(q)).toEqual(naive(all, q));
  }, 120_000);

  it("refuses a page after an event it does not hold", async () => {
    await expect(readAuditLines(url, { after: "nope" })).rejects.toMatchObject({ code: "audit_event_not_found" });
  });
});
