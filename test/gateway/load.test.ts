// Load and crash safety: 200 concurrent tool calls through one gateway process, and kill -9 in the
// middle of them.
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { readAuditEvents } from "../../src/audit/log.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import { cliPath, counted, root, tempDir, upstreamEnv, upstreamScript, verdictOf } from "./harness.js";
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

async function connect(): Promise<{ client: Client; pid: number }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, "gateway", "--policy", join(dir, "policy.yaml"), "--context", join(dir, "context.json"), "--store", store(), "--", process.execPath, upstreamScript],
    env: upstreamEnv(dir),
    cwd: root,
    stderr: "pipe",
  });
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
    expect([...reached].sort()).toEqual(range(N).filter((i) => expected(i) === "forward").map((i) => `r${i}`).sort());

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
    const { client, pid } = await connect();
    const answered: { i: number; r: CallToolResult }[] = [];
    let reachedThird: () => void;
    const third = new Promise<void>((resolve) => (reachedThird = resolve));
    const pending = range(N).map((i) =>
      client.callTool(callOf(i)).then(
        (r) => {
          answered.push({ i, r: r as CallToolResult });
          if (answered.length === Math.floor(N / 3)) reachedThird();
        },
        () => undefined, // cut off by the kill
      ),
    );
    await third;
    process.kill(pid, "SIGKILL");
    await Promise.all(pending);
    expect(answered.length).toBeGreaterThanOrEqual(Math.floor(N / 3));
    expect(answered.length).toBeLessThan(N);

    // the database opens, passes its integrity check, and every event is whole
    const db = new Database(store());
    expect(db.pragma("integrity_check", { simple: true })).toBe("ok");
    const rows = db.prepare("SELECT id, type, body FROM audit_events ORDER BY seq").all() as { id: string; type: string; body: string }[];
    db.close();
    for (const row of rows) {
      const event = JSON.parse(row.body) as Record<string, unknown>;
      expect([event.id, event.type]).toEqual([row.id, row.type]);
    }
    // every answered decision was recorded before it was answered
    const decided = new Set(rows.filter((r) => r.type === "tessera.decision.v1").map((r) => (JSON.parse(r.body) as { call_id: string }).call_id));
    for (const { r } of answered) expect(decided.has(verdictOf(r)!.call_id)).toBe(true);

    // every hold that was answered is still pending
    const held = answered.filter(({ i }) => expected(i) === "hold").map(({ r }) => verdictOf(r)!.review_id!);
    expect(held.length).toBeGreaterThan(0);
    const reviews = openSqliteReviewStore(store());
    for (const id of held) expect((await reviews.get(id, Date.now()))?.state).toBe("pending");
    await reviews.close();

    // a restarted gateway serves from the same store; nothing reached the upstream twice
    const again = await connect();
    const after = (await again.client.callTool({ name: "refund_order", arguments: { order_id: 5, request: "after-restart" } })) as CallToolResult;
    expect(verdictOf(after)!.decision).toBe("forward");
    const reached = counted(join(dir, "counter.jsonl")).map((c) => c.arguments.request);
    expect(reached).toContain("after-restart");
    expect(new Set(reached).size).toBe(reached.length);
    // the identical held call finds its pending review, not a new one
    const firstHold = answered.find(({ i }) => expected(i) === "hold")!;
    const retried = (await again.client.callTool(callOf(firstHold.i))) as CallToolResult;
    expect(verdictOf(retried)!.review_id).toBe(verdictOf(firstHold.r)!.review_id);
  });
});
