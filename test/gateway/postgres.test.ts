// The gateway's store over the local Postgres server: several gateway instances share one review
// queue, one set of tool pins and one audit log. Each run uses its own schema.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { mkdirSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openAuditLog } from "../../src/audit/log.js";
import { openPgAuditLog, readPgAuditLines } from "../../src/audit/postgres.js";
import { approveReview } from "../../src/review/actions.js";
import { type GatewayStore, openGatewayStore } from "../../src/review/open.js";
import {
  counted,
  cliPath,
  type Running,
  startGateway,
  tempDir,
  TestClock,
  upstreamEnv,
  upstreamScript,
  verdictOf,
} from "./harness.js";
import { PG_URL, pgReachable, REQUIRE_LIVE, storeUrl, uniqueSchema } from "./live.js";
import { type GatewayPolicy, openGatewayPolicy, writePolicy } from "./policy.js";

const SCHEMA = uniqueSchema("tessera_gw");
const STORE = storeUrl(SCHEMA);
const live = await pgReachable();

it("the live postgres server is reachable when TESSERA_REQUIRE_LIVE=1", () => {
  if (REQUIRE_LIVE) expect(live, "postgres at TESSERA_PG_URL must be reachable").toBe(true);
});

describe.skipIf(!live)("gateway store on postgres (live)", () => {
  const clock = new TestClock();
  let stores: GatewayStore[] = [];
  const open = async () => {
    const s = await openGatewayStore(STORE, { clock: clock.read });
    stores.push(s);
    return s;
  };

  afterAll(async () => {
    for (const s of stores) await s.close();
    stores = [];
    const admin = new pg.Client({ connectionString: PG_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${SCHEMA} CASCADE`);
    await admin.end();
  });

  it("opens concurrently from several instances and consumes one approval exactly once", async () => {
    const [a, b, c] = await Promise.all([open(), open(), open()]);
    const key = {
      tool: "refund_order",
      arguments_digest: "sha256:aa",
      policy_digest: "sha256:pp",
      context_digest: "sha256:cc",
    };
    const hold = { ...key, arguments: { order_id: 3 }, reasons: [], approval_ttl_ms: 60_000, review_ttl_ms: 600_000 };
    const first = await a!.reviews.hold(hold, clock.now);
    const second = await b!.reviews.hold(hold, clock.now);
    expect(first.created).toBe(true);
    expect(second).toEqual({ review: first.review, created: false });
    await approveReview(c!.reviews, c!.audit, first.review.id, "ada", clock.now);
    const tries = await Promise.all(
      Array.from({ length: 24 }, (_, i) => [a, b, c][i % 3]!.reviews.consume(key, clock.now)),
    );
    expect(tries.filter((t) => t !== null).map((t) => t!.id)).toEqual([first.review.id]);
    expect((await a!.reviews.get(first.review.id, clock.now))!.state).toBe("consumed");
  });

  it("expires approvals by the injected clock and refuses to approve twice", async () => {
    const s = await open();
    const key = {
      tool: "refund_order",
      arguments_digest: "sha256:bb",
      policy_digest: "sha256:pp",
      context_digest: "sha256:cc",
    };
    const { review } = await s.reviews.hold(
      { ...key, arguments: {}, reasons: [], approval_ttl_ms: 1_000, review_ttl_ms: 600_000 },
      clock.now,
    );
    await s.reviews.approve(review.id, "ada", clock.now);
    await expect(s.reviews.approve(review.id, "ada", clock.now)).rejects.toMatchObject({ code: "review_not_pending" });
    expect((await s.reviews.get(review.id, clock.now + 1_000))!.state).toBe("expired");
    expect(await s.reviews.consume(key, clock.now + 1_000)).toBeNull();
    expect((await s.reviews.consume(key, clock.now + 999))!.id).toBe(review.id);
  });

  it("checks and writes events as the SQLite log does: a bad type or a reserved key is refused, a bigint is text", async () => {
    const schema = uniqueSchema("tessera_gw_audit");
    const { dir, cleanup } = tempDir("gw-pg-audit");
    const pgLog = await openPgAuditLog(storeUrl(schema), { clock: clock.read });
    const sqliteLog = openAuditLog(join(dir, "audit.db"), { clock: () => new Date(clock.now) });
    try {
      for (const [type, payload, code] of [
        ["not a type", {}, "audit_type_invalid"],
        ["tessera.decision.v1", { id: "forged" }, "audit_payload_invalid"],
        ["tessera.decision.v1", { at: "1970-01-01T00:00:00.000Z" }, "audit_payload_invalid"],
      ] as const) {
        expect(() => sqliteLog.append(type, payload)).toThrow(expect.objectContaining({ code }));
        await expect(pgLog.append(type, payload)).rejects.toMatchObject({ code });
      }
      const fromPg = await pgLog.append("tessera.test.v1", { rows: 10n });
      const fromSqlite = sqliteLog.append("tessera.test.v1", { rows: 10n });
      const lines = await readPgAuditLines(storeUrl(schema));
      expect(lines).toHaveLength(1);
      const stored = JSON.parse(lines[0]!) as Record<string, unknown>;
      expect(stored).toEqual({ type: "tessera.test.v1", id: fromPg.id, at: fromPg.at, rows: "10" });
      expect(Object.keys(stored)).toEqual(Object.keys(fromSqlite));
    } finally {
      await pgLog.close();
      sqliteLog.close();
      cleanup();
      const admin = new pg.Client({ connectionString: PG_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    }
  });

  describe("two gateways sharing the store", () => {
    let dir: string;
    let cleanup: () => void;
    let policy: GatewayPolicy;
    let one: Running;
    let two: Running;

    beforeAll(async () => {
      ({ dir, cleanup } = tempDir("gw-pg"));
      policy = await openGatewayPolicy(dir, clock.read);
      const [s1, s2] = await Promise.all([open(), open()]);
      one = await startGateway({
        dir,
        decide: policy.decide,
        describe: policy.describe,
        reviews: s1!.reviews,
        audit: s1!.audit,
        clock,
      });
      two = await startGateway({
        dir,
        decide: policy.decide,
        describe: policy.describe,
        reviews: s2!.reviews,
        audit: s2!.audit,
        clock,
      });
    });
    afterAll(async () => {
      await one?.close();
      await two?.close();
      await policy?.close();
      cleanup?.();
    });

    it("a call held by one instance is forwarded once by whichever instance sees it first", async () => {
      const args = { order_id: policy.orders.held, request: "shared" };
      const held = await one.call("refund_order", args);
      const id = verdictOf(held)!.review_id!;
      expect(verdictOf(await two.call("refund_order", args))!.review_id).toBe(id); // one queue
      const reviewer = await open();
      await approveReview(reviewer.reviews, reviewer.audit, id, "ada", clock.now);
      const both = await Promise.all([one.call("refund_order", args), two.call("refund_order", args)]);
      expect(both.map((r) => verdictOf(r)!.decision).sort()).toEqual(["forward", "hold"]);
      expect(counted(join(dir, "counter.jsonl")).filter((c) => c.arguments.request === "shared")).toHaveLength(1);

      const events = (await readPgAuditLines(STORE)).map((l) => JSON.parse(l) as Record<string, unknown>);
      const decisions = events.filter((e) => e.type === "tessera.decision.v1" && e.tool === "refund_order");
      expect(decisions.map((e) => e.action)).toEqual(["hold", "hold", expect.any(String), expect.any(String)]);
      expect(events.filter((e) => e.type === "tessera.forward.v1")).toHaveLength(1);
      expect(events.filter((e) => e.type === "tessera.review.v1" && e.review_id === id).map((e) => e.action)).toEqual([
        "held",
        "approved",
        "consumed",
      ]);
    });

    it("pins tool definitions once for every instance", async () => {
      await one.client.listTools();
      await two.client.listTools();
      const pinned = (await readPgAuditLines(STORE))
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((e) => e.action === "tool_pinned");
      expect(pinned.map((e) => e.tool).sort()).toEqual([
        "crash",
        "echo",
        "garbage",
        "hang",
        "malformed",
        "progress",
        "refund_order",
        "roots",
      ]);
    });

    it("`tessera gateway --store postgres://…` writes to the shared queue and log", async () => {
      mkdirSync(join(dir, "cli"));
      writePolicy(join(dir, "cli"), 4);
      const transport = new StdioClientTransport({
        command: process.execPath,
        args: [
          cliPath,
          "gateway",
          "--policy",
          join(dir, "cli", "policy.yaml"),
          "--context",
          join(dir, "cli", "context.json"),
          "--store",
          STORE,
          "--",
          process.execPath,
          upstreamScript,
        ],
        env: upstreamEnv(dir),
        stderr: "ignore",
      });
      const client = new Client({ name: "pg-cli", version: "1" });
      await client.connect(transport);
      try {
        const held = (await client.callTool({
          name: "refund_order",
          arguments: { order_id: 3, request: "via-cli" },
        })) as CallToolResult;
        const id = verdictOf(held)!.review_id!;
        const reviewer = await open();
        expect((await reviewer.reviews.get(id, clock.now))!.arguments).toEqual({ order_id: 3, request: "via-cli" });
        const decisions = (await readPgAuditLines(STORE))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .filter((e) => e.review_id === id && e.type === "tessera.decision.v1");
        expect(decisions.map((e) => e.action)).toEqual(["hold"]);
      } finally {
        await client.close();
      }
    });

    it("`tessera review list` and `tessera audit export` read the shared store", () => {
      const env = { PATH: process.env.PATH ?? "", NO_COLOR: "1" };
      const list = spawnSync(process.execPath, [cliPath, "review", "list", "--all", "--json", "--store", STORE], {
        encoding: "utf8",
        env,
      });
      expect(list.status).toBe(0);
      const ids = (JSON.parse(list.stdout) as { tool: string; state: string }[])
        .filter((r) => r.tool === "refund_order")
        .map((r) => r.state);
      expect(ids).toContain("consumed");
      const out = spawnSync(
        process.execPath,
        [cliPath, "audit", "export", "--jsonl", "--type", "tessera.forward.v1", "--store", STORE],
        { encoding: "utf8", env },
      );
      expect(out.status).toBe(0);
      expect(out.stdout.trimEnd().split("\n")).toHaveLength(1);
    });
  });
});
