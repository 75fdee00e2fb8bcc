// `--notify` through the real gateway: a receiver on 127.0.0.1 gets exactly one event per hold and
// one per decision (decided from another store handle, as `tessera review` decides from another
// process), in the schema of specs/gateway.md and never with an argument value; a receiver that
// fails is retried, and one that is down or never answers delays no call and loses no decision.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { NotifyOptions } from "../../src/mcp/gateway/hold-notify.js";
import type { Gateway } from "../../src/mcp/gateway/gateway.js";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { approveReview, denyReview } from "../../src/review/actions.js";
import { checkNotifyUrl, type Notification, notificationOf, slackText } from "../../src/review/notify.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { ReviewStore } from "../../src/review/types.js";
import { specTable } from "../core/spec-tables.js";
import { counted, tempDir, TestClock, verdictOf, startGateway } from "./harness.js";
import { type GatewayPolicy, openGatewayPolicy } from "./policy.js";
import { Receiver } from "./receiver.js";

let dir: string;
let cleanup: () => void;
let clock: TestClock;
let policy: GatewayPolicy;
let reviews: ReviewStore;
let reviewer: ReviewStore;
let gateway: Gateway | undefined;
let client: Client | undefined;
const diagnostics: string[] = [];
const receivers: Receiver[] = [];
let said: (line: string) => void = () => undefined;

const calls = () => counted(join(dir, "counter.jsonl"));

async function start(notify: NotifyOptions): Promise<void> {
  const running = await startGateway({
    dir,
    decide: policy.decide,
    describe: policy.describe,
    reviews,
    audit: policy.audit,
    clock,
    approvalTtlMs: 60_000,
    reviewTtlMs: 3_600_000,
    extra: {
      notify: { watchEveryMs: 10, backoffMs: () => 1, ...notify },
      onDiagnostic: (line) => {
        diagnostics.push(line);
        said(line);
      },
    },
  });
  gateway = running.gateway;
  client = running.client;
}

const call = async (args: Record<string, unknown>) =>
  (await client!.callTool({ name: "refund_order", arguments: args })) as CallToolResult;

async function receiver(): Promise<{ r: Receiver; url: string }> {
  const r = new Receiver();
  receivers.push(r);
  return { r, url: await r.listen() };
}

beforeEach(async () => {
  ({ dir, cleanup } = tempDir("gw-webhooks"));
  clock = new TestClock();
  policy = await openGatewayPolicy(dir, clock.read);
  reviews = openSqliteReviewStore(join(dir, "gateway.db"));
  reviewer = openSqliteReviewStore(join(dir, "gateway.db"));
  diagnostics.length = 0;
  said = () => undefined;
});

afterEach(async () => {
  await client?.close();
  await gateway?.close();
  client = undefined;
  gateway = undefined;
  for (const r of receivers.splice(0)) await r.close();
  await reviews.close();
  await reviewer.close();
  await policy.close();
  cleanup();
});

describe("gateway notifications", () => {
  it("sends exactly one event per hold and one per decision, in the schema of the spec, without argument values", async () => {
    const { r, url } = await receiver();
    await start({ urls: [url] });
    const secret = "refund to IBAN DE00 1234";
    const first = verdictOf(await call({ order_id: 3, request: secret }))!.review_id!;
    await call({ order_id: 3, request: secret }); // the same pending review: no second held event
    await r.received(1);
    await approveReview(reviewer, policy.audit, first, "ada", clock.now);
    await r.received(2);
    const second = verdictOf(await call({ order_id: 7 }))!.review_id!;
    await r.received(3);
    clock.advance(1_000);
    await denyReview(reviewer, policy.audit, second, "bo", clock.now, "order 7 is under dispute");
    await r.received(4);
    await gateway!.close();

    const events = r.accepted as Notification[];
    expect(events.map((e) => [e.type, e.review_id, e.state, e.reviewer, e.reason])).toEqual([
      ["held", first, "pending", null, null],
      ["decided", first, "approved", "ada", null],
      ["held", second, "pending", null, null],
      ["decided", second, "denied", "bo", "order 7 is under dispute"],
    ]);
    const keys = specTable("gateway.md", "Notifications").rows.map((row) => row[0]!.replace(/`/g, ""));
    for (const e of events) expect(Object.keys(e)).toEqual(keys);
    expect(events[0]).toMatchObject({
      schema: "tessera.notification.v1",
      tool: "refund_order",
      kinds: ["needs_judgment"],
      codes: ["not_equal"],
      held_at: new Date(clock.now - 1_000).toISOString(),
      decided_at: null,
    });
    expect(events[3]!.decided_at).toBe(new Date(clock.now).toISOString());
    expect(JSON.stringify(events)).not.toContain("IBAN");
    expect(r.tries).toBe(4);
  });

  it("retries a receiver that fails, so the event arrives once", async () => {
    const { r, url } = await receiver();
    r.script.push(500, 503);
    await start({ urls: [url], attempts: 4 });
    const id = verdictOf(await call({ order_id: 3 }))!.review_id!;
    await r.received(1);
    expect(r.tries).toBe(3);
    expect((r.accepted[0] as Notification).review_id).toBe(id);
    expect(diagnostics).toEqual([]);
  });

  it("gives up after the bounded tries, says so once, and refuses to retry a 4xx", async () => {
    const { r, url } = await receiver();
    r.script.push(500, 500, 404);
    await start({ urls: [url], attempts: 2 });
    const reported = new Promise<void>((resolve) => (said = (line) => line.includes("not delivered") && resolve()));
    const id = verdictOf(await call({ order_id: 3 }))!.review_id!;
    await reported;
    expect(diagnostics.filter((d) => d.includes("not delivered"))).toEqual([
      `tessera gateway: a notification to ${new URL(url).origin} was not delivered: HTTP 500`,
    ]);
    // the decision is not changed by it, and its own event is tried (a 404 once, not again)
    const decided = new Promise<void>((resolve) => (said = (line) => line.includes("HTTP 404") && resolve()));
    await approveReview(reviewer, policy.audit, id, "ada", clock.now);
    await decided;
    expect(r.tries).toBe(3);
    expect(verdictOf(await call({ order_id: 3 }))).toMatchObject({ decision: "forward", review_id: id });
  });

  it("a receiver that is down or never answers delays no call and loses no decision", async () => {
    const down = new Receiver();
    const downUrl = await down.listen();
    await down.close(); // nothing listens on its port now
    const { r: hanging, url: hangingUrl } = await receiver();
    hanging.script.push("hang", "hang", "hang", "hang");
    await start({ urls: [downUrl, hangingUrl], attempts: 2, timeoutMs: 60_000 });
    const args = { order_id: 3 };
    const held = await call(args);
    expect(verdictOf(held)!.decision).toBe("hold");
    const id = verdictOf(held)!.review_id!;
    // the call was answered while neither receiver took its event
    expect(hanging.accepted).toEqual([]);
    await approveReview(reviewer, policy.audit, id, "ada", clock.now);
    const forwarded = await call(args);
    expect(verdictOf(forwarded)).toMatchObject({ decision: "forward", review_id: id });
    expect(calls().map((c) => c.arguments)).toEqual([args]);
    expect((await reviews.get(id, clock.now))!.state).toBe("consumed");
  });

  it("writes a Slack-compatible text body with --notify-format slack, its markup escaped", async () => {
    const { r, url } = await receiver();
    await start({ urls: [url], format: "slack" });
    const id = verdictOf(await call({ order_id: 3 }))!.review_id!;
    await r.received(1);
    await denyReview(reviewer, policy.audit, id, "ada <ops>", clock.now, "use the <refunds> & returns form");
    await r.received(2);
    expect(r.accepted[0]).toEqual({
      text: `tessera: \`refund_order\` call ${id} is held for review (needs_judgment, not_equal): \`tessera review approve ${id}\` or \`tessera review deny ${id}\` before ${new Date(clock.now + 3_600_000).toISOString()}`,
    });
    expect(r.accepted[1]).toEqual({
      text: `tessera: \`refund_order\` call ${id} was denied by ada &lt;ops&gt;: use the &lt;refunds&gt; &amp; returns form`,
    });
    const expired = notificationOf("decided", {
      ...(await reviews.get(id, clock.now))!,
      state: "expired",
      decided_at: null,
    });
    expect(slackText(expired)).toBe(`tessera: \`refund_order\` call ${id} expired: nobody reviewed it in time`);
  });
});

describe("--notify URLs", () => {
  it.each([
    ["ftp://127.0.0.1/x", "not ftp:"],
    ["http://user:secret@127.0.0.1/x", "must not carry credentials"],
    ["not a url", "does not parse"],
  ])("refuses %s without echoing it", (url, message) => {
    let err: unknown;
    try {
      checkNotifyUrl(url);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code: "usage_error" });
    expect((err as Error).message).toContain(message);
    expect((err as Error).message).not.toContain("secret");
  });

  it("takes http and https", () => {
    expect(checkNotifyUrl("https://hooks.example.com/services/T0/B0/xyz").origin).toBe("https://hooks.example.com");
    expect(checkNotifyUrl("http://127.0.0.1:8080/hook").protocol).toBe("http:");
  });
});
