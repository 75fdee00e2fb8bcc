// Load and crash safety: 200 concurrent tool calls through one gateway process, and kill -9 in the
// middle of them.
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readAuditEvents } from "../../src/audit/log.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import { gatewayProcess, counted, tempDir, upstreamEnv, verdictOf } from "./harness.js";
import { writePolicy } from "./policy.js";

const N = 200;
let dir: string;
let cleanup: () => void;
const clients: Client[] = [];

beforeEach(() => {
  ({ dir, cleanup } = tempDir("gw-load"));
  writePolicy(dir, N);
});
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close().catch(() => undefined);
  cleanup();
});

const store = () => join(dir, "gateway.db");

async function connect(env: Record<string, string> = {}): Promise<{ client: Client; pid: number }> {
  const transport = gatewayProcess(dir, store(), { env: { ...upstreamEnv(dir), ...env } });
  const client = new Client({ name: "load-test", version: "1.0.0" });
  await client.connect(transport);
  clients.push(client);
  return { client, pid: transport.pid! };
}

const callOf = (i: number) => ({ name: "refund_order", arguments: { order_id: i, request: `r${i}` } });
/** What the policy decides for order i (see policy.ts): 1 forward, 2 block, 3 and 0 hold. */
const expected = (i: number) => (i % 4 === 1 ? "forward" : i % 4 === 2 ? "block" : "hold");
const range = (n: number) => Array.from({ length: n }, (_, k) => k + 1);

describe("gateway under load", () => {
  it("answers 200 concurrent calls, audits every decision and forwards none twice", async () => {
    const { client } = await connect();
    const results = (await Promise.all(range(N).map((i) => client.callTool(callOf(i))))) as CallToolResult[];
    const verdicts = results.map((r) => verdictOf(r)!);
    expect(verdicts.map((v) => v.decision)).toEqual(range(N).map(expected));

    const reached = counted(join(dir, "counter.jsonl")).map((c) => c.arguments.request);
    expect(new Set(reached).size).toBe(reached.length);
    expect([...reached].sort()).toEqual(
      range(N)
        .filter((i) => expected(i) === "forward")
        .map((i) => `r${i}`)
        .sort(),
    );

    const events = readAuditEvents(store());
    const decisions = events.filter((e) => e.type === "tessera.decision.v1");
    expect(decisions).toHaveLength(N);
    expect(new Set(decisions.map((e) => e.call_id))).toEqual(new Set(verdicts.map((v) => v.call_id)));
    const forwards = events.filter((e) => e.type === "tessera.forward.v1");
    expect(forwards).toHaveLength(N / 4);
    expect(new Set(forwards.map((e) => e.call_id)).size).toBe(N / 4);

    const reviews = openSqliteReviewStore(store());
    expect(await reviews.list(Date.now(), "pending")).toHaveLength(N / 2);
    await reviews.close();
  });

  it("survives kill -9 during the load: the store opens, no half-written event, pending holds remain", async () => {
    // two waves of 100 concurrent calls: the first is answered in full; during the second the
    // upstream kills the gateway (SIGKILL) as the 35th allowed call (the 10th of that wave) reaches
    // it, so the kill lands with calls in every stage: deciding, recording, forwarding, answering
    const { client } = await connect({ KILL_PARENT_AT: String(N / 8 + 10) });
    const answered: { i: number; r: CallToolResult }[] = [];
    const wave = (from: number) =>
      Promise.allSettled(
        range(N / 2).map((k) =>
          client.callTool(callOf(from + k)).then((r) => answered.push({ i: from + k, r: r as CallToolResult })),
        ),
      );
    const first = await wave(0);
    expect(first.every((x) => x.status === "fulfilled")).toBe(true);
    const second = await wave(N / 2);
    const cut = second.filter((x) => x.status === "rejected").length;
    expect(cut).toBeGreaterThan(0);
    expect(answered.length).toBe(N - cut);

    // the database opens, passes its integrity check, and every event is whole
    const db = new Database(store());
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const rows = db.prepare("SELECT id, type, body FROM audit_events ORDER BY seq").all() as {
      id: string;
      type: string;
      body: string;
    }[];
    db.close();
    for (const row of rows) {
      const event = JSON.parse(row.body) as Record<string, unknown>;
      expect([event.id, event.type]).toEqual([row.id, row.type]);
    }
    // every answered decision was recorded before it was answered
    const decided = new Set(
      rows
        .filter((r) => r.type === "tessera.decision.v1")
        .map((r) => (JSON.parse(r.body) as { call_id: string }).call_id),
    );
    for (const { r } of answered) expect(decided.has(verdictOf(r)!.call_id)).toBe(true);

    // every hold that was recorded (answered or not) is still pending
    const heldInLog = rows
      .filter((r) => r.type === "tessera.decision.v1")
      .map((r) => JSON.parse(r.body) as { action: string; review_id: string })
      .filter((e) => e.action === "hold");
    const answeredHolds = answered.filter(({ i }) => expected(i) === "hold").map(({ r }) => verdictOf(r)!.review_id!);
    expect(heldInLog.length).toBeGreaterThan(0);
    const reviews = openSqliteReviewStore(store());
    const digest = reviews.digest; // the store's keyed digest, the one the gateway recorded
    for (const id of [...heldInLog.map((e) => e.review_id), ...answeredHolds])
      expect((await reviews.get(id, Date.now()))?.state).toBe("pending");
    await reviews.close();

    // a restarted gateway serves from the same store; nothing reached the upstream twice
    const again = await connect();
    const after = (await again.client.callTool({
      name: "refund_order",
      arguments: { order_id: 5, request: "after-restart" },
    })) as CallToolResult;
    expect(verdictOf(after)!.decision).toBe("forward");
    const reached = counted(join(dir, "counter.jsonl")).map((c) => c.arguments.request);
    expect(reached).toContain("after-restart");
    expect(new Set(reached).size).toBe(reached.length);
    // an identical held call finds its pending review, not a new one
    const heldEvent = rows
      .map(
        (r) => JSON.parse(r.body) as { type: string; action?: string; review_id?: string; arguments_digest?: string },
      )
      .find((e) => e.type === "tessera.decision.v1" && e.action === "hold")!;
    const heldIndex = range(N).find((i) => digest(callOf(i).arguments) === heldEvent.arguments_digest)!;
    const retried = (await again.client.callTool(callOf(heldIndex))) as CallToolResult;
    expect(verdictOf(retried)!.review_id).toBe(heldEvent.review_id);
  });
});
