// The counting upstream behind a gateway: what reaches it, and exactly how often.
import { writeFileSync } from "node:fs";
import Database from "better-sqlite3";
import { join } from "node:path";
import { LoggingMessageNotificationSchema } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { digestOf } from "../../src/platform/digest.js";
import { approveReview, approveTool, denyReview } from "../../src/review/actions.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { ReviewStore } from "../../src/review/types.js";
import { counted, type Running, startGateway, tempDir, TestClock, textOf, verdictOf } from "./harness.js";
import { CONTEXT, type GatewayPolicy, openGatewayPolicy } from "./policy.js";

let dir: string;
let cleanup: () => void;
let reviews: ReviewStore;
let policy: GatewayPolicy;
let clock: TestClock;
let gw: Running;

const calls = () => counted(join(dir, "counter.jsonl"));

beforeEach(async () => {
  ({ dir, cleanup } = tempDir("gw-count"));
  clock = new TestClock();
  policy = await openGatewayPolicy(dir, clock.read);
  reviews = openSqliteReviewStore(join(dir, "gateway.db"));
  gw = await startGateway({
    dir,
    decide: policy.decide,
    describe: policy.describe,
    reviews,
    audit: policy.audit,
    clock,
    approvalTtlMs: 60_000,
    reviewTtlMs: 3_600_000,
  });
});

afterEach(async () => {
  await gw.close();
  await reviews.close();
  await policy.close();
  cleanup();
});

describe("gateway in front of the counting upstream", () => {
  it("passes tools/list, resources and prompts through unchanged", async () => {
    const { tools } = await gw.client.listTools();
    expect(tools.map((t) => t.name)).toEqual([
      "refund_order",
      "echo",
      "crash",
      "hang",
      "malformed",
      "garbage",
      "progress",
      "roots",
    ]);
    const res = await gw.client.readResource({ uri: "counter://readme" });
    expect(res.contents[0]).toMatchObject({ text: "the counting upstream" });
    const prompt = await gw.client.getPrompt({ name: "greet", arguments: { who: "ada" } });
    expect(prompt.messages[0]?.content).toEqual({ type: "text", text: "hello ada" });
    expect(gw.client.getInstructions()).toBe("counts its calls");
    const logged = new Promise((resolve) =>
      gw.client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => resolve(n.params)),
    );
    await gw.client.setLoggingLevel("debug");
    expect(await logged).toEqual({ level: "warning", logger: "upstream-counter", data: "level set to debug" });
    expect(calls()).toEqual([]);
  });

  it("relays progress from the upstream and cancellation to it", async () => {
    const controller = new AbortController();
    let progressed!: (p: unknown) => void;
    const progress = new Promise((resolve) => (progressed = resolve));
    const pending = gw.client.callTool({ name: "progress", arguments: {} }, undefined, {
      signal: controller.signal,
      onprogress: (p) => progressed(p),
    });
    expect(await progress).toEqual({ progress: 1, total: 2, message: "half way" });
    controller.abort();
    await expect(pending).rejects.toThrow();
    // the cancellation went down the same pipe before this call, so the upstream has seen it
    expect(textOf(await gw.call("echo", { text: "after" }))).toBe("after");
    expect(calls().map((c) => [c.tool, c.arguments])).toEqual([
      ["progress", {}],
      ["progress", { cancelled: true }],
      ["echo", { text: "after" }],
    ]);
    const forwards = policy.events().filter((e) => e.type === "tessera.forward.v1");
    expect(forwards.map((e) => [e.tool, e.outcome, e.error_code])).toEqual([
      ["progress", "cancelled", null],
      ["echo", "ok", null],
    ]);
  });

  it("relays the upstream's requests to the client (roots/list)", async () => {
    expect(textOf(await gw.call("roots"))).toBe("file:///work/agent");
  });

  it("forwards an allowed call once and returns the upstream's result", async () => {
    const r = await gw.call("refund_order", { order_id: policy.orders.allowed });
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toBe(`refunded ${policy.orders.allowed}`);
    expect(r.structuredContent).toEqual({ refunded: policy.orders.allowed });
    expect(verdictOf(r)).toMatchObject({
      decision: "forward",
      review_id: null,
      policy_digest: policy.digest,
      codes: [],
    });
    expect(calls().map((c) => c.arguments)).toEqual([{ order_id: policy.orders.allowed }]);
  });

  it("never forwards a blocked call and says why", async () => {
    const r = await gw.call("refund_order", { order_id: policy.orders.blocked });
    expect(r.isError).toBe(true);
    expect(verdictOf(r)).toMatchObject({ decision: "block", review_id: null, codes: ["not_equal"] });
    expect(textOf(r)).toMatch(/^blocked by tessera/);
    expect(textOf(r).split("\n")[1]).toBe(
      "order_id check 0 (billing): mismatch → block [not_equal] customer_id not_equal (ctx customer_id)",
    );
    expect(calls()).toEqual([]);
  });

  it("holds a call, then forwards the identical call exactly once after approval", async () => {
    const args = { order_id: policy.orders.held };
    const held = await gw.call("refund_order", args);
    const id = verdictOf(held)!.review_id!;
    expect(verdictOf(held)).toMatchObject({ decision: "hold", codes: ["not_equal"] });
    expect(id).toMatch(/^rv_[0-9a-f]{12}$/);
    expect(textOf(held)).toContain(`tessera review approve ${id}`);
    // asking again while pending returns the same review, still not forwarded
    expect(verdictOf(await gw.call("refund_order", args))!.review_id).toBe(id);
    expect(calls()).toEqual([]);

    const review = (await reviews.get(id, clock.now))!;
    expect(review).toMatchObject({ state: "pending", tool: "refund_order", arguments: args });
    expect(review.reasons).toEqual([
      {
        kind: "needs_judgment",
        argument: "order_id",
        check: 1,
        source: "billing",
        status: "mismatch",
        codes: ["not_equal"],
        message: 'status not_equal (value "delivered")',
      },
    ]);
    await approveReview(reviews, policy.audit, id, "ada", clock.now);

    const forwarded = await gw.call("refund_order", args);
    expect(forwarded.isError).toBeFalsy();
    expect(textOf(forwarded)).toBe(`refunded ${args.order_id}`);
    expect(verdictOf(forwarded)).toMatchObject({ decision: "forward", review_id: id });
    expect(calls()).toHaveLength(1);
    expect((await reviews.get(id, clock.now))!.state).toBe("consumed");

    // the approval is used up: the same call is held again under a new review
    const again = await gw.call("refund_order", args);
    expect(verdictOf(again)!.decision).toBe("hold");
    expect(verdictOf(again)!.review_id).not.toBe(id);
    expect(calls()).toHaveLength(1);
  });

  it("never forwards a denied call: the agent reads the reviewer's reason for a review TTL, then it is held anew", async () => {
    const args = { order_id: policy.orders.held };
    const id = verdictOf(await gw.call("refund_order", args))!.review_id!;
    clock.advance(1_000);
    await denyReview(reviews, policy.audit, id, "ada", clock.now, "refunds of shipped orders need a ticket");
    const denied = await gw.call("refund_order", args);
    expect(denied.isError).toBe(true);
    expect(verdictOf(denied)).toMatchObject({
      decision: "block",
      review_id: id,
      codes: ["review_denied", "not_equal"],
    });
    expect(textOf(denied).split("\n")[0]).toBe("denied by ada: refunds of shipped orders need a ticket");
    const refused = policy.events().filter((e) => e.type === "tessera.decision.v1" && e.action === "reject");
    expect(refused.map((e) => [e.review_id, e.codes])).toEqual([[id, ["review_denied", "not_equal"]]]);
    // other arguments are not refused by this denial
    expect(verdictOf(await gw.call("refund_order", { ...args, request: "other" }))!.decision).toBe("hold");
    clock.advance(3_600_000 - 1); // one millisecond before the window ends
    expect(verdictOf(await gw.call("refund_order", args))!.codes[0]).toBe("review_denied");
    clock.advance(1);
    const anew = await gw.call("refund_order", args);
    expect(verdictOf(anew)!.decision).toBe("hold");
    expect(verdictOf(anew)!.review_id).not.toBe(id);
    expect(calls()).toEqual([]);
  });

  it("never forwards after the approval expired", async () => {
    const args = { order_id: policy.orders.held };
    const id = verdictOf(await gw.call("refund_order", args))!.review_id!;
    await approveReview(reviews, policy.audit, id, "ada", clock.now);
    clock.advance(60_000); // the TTL, exactly: expired
    const r = await gw.call("refund_order", args);
    expect(verdictOf(r)!.decision).toBe("hold");
    expect((await reviews.get(id, clock.now))!.state).toBe("expired");
    expect(calls()).toEqual([]);
  });

  it("lets a held call nobody reviewed in time expire: approving it fails, and the call asked again is held anew", async () => {
    const args = { order_id: policy.orders.held };
    const id = verdictOf(await gw.call("refund_order", args))!.review_id!;
    expect((await reviews.get(id, clock.now))!.expires_at).toBeGreaterThan(clock.now);
    clock.advance(3_600_000); // the review TTL: nobody decided
    expect((await reviews.get(id, clock.now))!.state).toBe("expired");
    await expect(approveReview(reviews, policy.audit, id, "ada", clock.now)).rejects.toMatchObject({
      code: "review_not_pending",
    });
    const again = await gw.call("refund_order", args);
    expect(verdictOf(again)!.decision).toBe("hold");
    const fresh = verdictOf(again)!.review_id!;
    expect(fresh).not.toBe(id);
    expect((await reviews.get(fresh, clock.now))!).toMatchObject({
      state: "pending",
      created_at: clock.now,
      expires_at: clock.now + 3_600_000,
    });
    expect(calls()).toEqual([]);
  });

  it("binds an approval to the trusted context: a gateway serving another session cannot use it", async () => {
    // the same policy and customer, another signed-in user: the same call holds there too
    const other = await startGateway({
      dir,
      decide: policy.decide,
      describe: policy.describe,
      reviews,
      audit: policy.audit,
      clock,
      contextDigest: digestOf({ ...CONTEXT, user: "mallory" }),
    });
    try {
      const args = { order_id: policy.orders.held };
      const id = verdictOf(await gw.call("refund_order", args))!.review_id!;
      await approveReview(reviews, policy.audit, id, "ada", clock.now);
      const elsewhere = await other.call("refund_order", args);
      expect(verdictOf(elsewhere)!.decision).toBe("hold");
      expect(verdictOf(elsewhere)!.review_id).not.toBe(id);
      expect(calls()).toEqual([]);
      expect((await reviews.get(id, clock.now))!.state).toBe("approved");
      expect(verdictOf(await gw.call("refund_order", args))).toMatchObject({ decision: "forward", review_id: id });
      expect(calls()).toHaveLength(1);
    } finally {
      await other.close();
    }
  });

  it("grounds a call with changed arguments afresh, leaving the approval unused", async () => {
    const id = verdictOf(await gw.call("refund_order", { order_id: policy.orders.held }))!.review_id!;
    await approveReview(reviews, policy.audit, id, "ada", clock.now);
    const changedHeld = await gw.call("refund_order", { order_id: policy.orders.held, request: "x" });
    expect(verdictOf(changedHeld)!.decision).toBe("hold");
    expect(verdictOf(changedHeld)!.review_id).not.toBe(id);
    const changedBlocked = await gw.call("refund_order", { order_id: policy.orders.blocked });
    expect(verdictOf(changedBlocked)!.decision).toBe("block");
    expect(calls()).toEqual([]);
    expect((await reviews.get(id, clock.now))!.state).toBe("approved");
  });

  it("grounds an approved call again: if it now blocks, it stays blocked and the approval unused", async () => {
    const args = { order_id: policy.orders.held };
    const id = verdictOf(await gw.call("refund_order", args))!.review_id!;
    await approveReview(reviews, policy.audit, id, "ada", clock.now);
    const db = new Database(join(dir, "billing.db"));
    db.prepare("UPDATE orders SET customer_id = 'c-2' WHERE order_id = ?").run(args.order_id); // the facts changed
    db.close();
    const r = await gw.call("refund_order", args);
    expect(verdictOf(r)).toMatchObject({ decision: "block", codes: ["not_equal"] });
    expect((await reviews.get(id, clock.now))!.state).toBe("approved");
    expect(calls()).toEqual([]);
  });

  it("holds a call whose verification was unavailable and tells the reviewer so", async () => {
    const r = await gw.call("refund_order", { order_id: policy.orders.unavailable });
    expect(verdictOf(r)!.decision).toBe("hold");
    const review = (await reviews.get(verdictOf(r)!.review_id!, clock.now))!;
    expect(review.reasons.map((x) => x.kind)).toContain("verification_unavailable");
    expect(calls()).toEqual([]);
  });

  it("blocks calls to a tool whose definition changed until it is re-approved", async () => {
    await gw.client.listTools(); // first sight pins every definition
    expect(textOf(await gw.call("echo", { text: "a" }))).toBe("a");
    writeFileSync(join(dir, "variant.txt"), "Also sends the card number to a third party.");
    await gw.client.listTools(); // the gateway sees the new definition
    const r = await gw.call("refund_order", { order_id: policy.orders.allowed });
    expect(verdictOf(r)).toMatchObject({ decision: "block", codes: ["tool_definition_changed"] });
    expect(textOf(r)).toContain("tessera review approve-tool refund_order");
    expect(textOf(await gw.call("echo", { text: "b" }))).toBe("b"); // other tools are unaffected
    expect(calls().map((c) => c.tool)).toEqual(["echo", "echo"]);

    const before = (await reviews.tools()).find((p) => p.tool === "refund_order")!;
    expect(before.pending_digest).not.toBeNull();
    const pin = await approveTool(reviews, policy.audit, "refund_order", before.pending_digest!, "ada", clock.now);
    expect(pin.digest).toBe(before.pending_digest);
    const after = await gw.call("refund_order", { order_id: policy.orders.allowed });
    expect(after.isError).toBeFalsy();
    expect(calls().map((c) => c.tool)).toEqual(["echo", "echo", "refund_order"]);
  });

  it("blocks a call to a tool the upstream does not list", async () => {
    const r = await gw.call("delete_everything", {});
    expect(verdictOf(r)).toMatchObject({ decision: "block", codes: ["tool_not_listed"] });
    expect(calls()).toEqual([]);
  });

  it("blocks arguments nested too deep to ground as a coded tool error, audited, and keeps serving", async () => {
    let deep: unknown = "x";
    for (let i = 0; i < 20_000; i++) deep = [deep];
    const r = await gw.call("echo", { text: "deep", deep });
    expect(r.isError).toBe(true);
    expect(verdictOf(r)).toMatchObject({ decision: "block", codes: ["input_too_large"] });
    expect(textOf(r)).toContain("nest deeper than 32 levels");
    const decision = policy.events().find((e) => e.type === "tessera.decision.v1")!;
    expect([decision.tool, decision.decision, decision.action, decision.reason, decision.arguments_digest]).toEqual([
      "echo",
      "block",
      "reject",
      "input_too_large",
      null,
    ]);
    expect(textOf(await gw.call("echo", { text: "after" }))).toBe("after");
    expect(calls().map((c) => c.arguments)).toEqual([{ text: "after" }]);
  });

  it("audits every decision, review and forward with digests and no argument values", async () => {
    const secret = 4242_4242;
    await gw.call("refund_order", { order_id: policy.orders.allowed, request: `card ${secret}` });
    await gw.call("refund_order", { order_id: policy.orders.blocked });
    const id = verdictOf(await gw.call("refund_order", { order_id: policy.orders.held }))!.review_id!;
    await approveReview(reviews, policy.audit, id, "ada", clock.now);
    await gw.call("refund_order", { order_id: policy.orders.held });
    const events = policy.events();
    const decisions = events.filter((e) => e.type === "tessera.decision.v1");
    expect(decisions.map((e) => [e.decision, e.action])).toEqual([
      ["allow", "forward"],
      ["block", "reject"],
      ["hold", "hold"],
      ["hold", "forward"],
    ]);
    expect(decisions[3]!.review_id).toBe(id);
    const forwards = events.filter((e) => e.type === "tessera.forward.v1");
    expect(forwards.map((e) => [e.call_id, e.outcome])).toEqual([
      [decisions[0]!.call_id, "ok"],
      [decisions[3]!.call_id, "ok"],
    ]);
    const reviewActions = events.filter((e) => e.type === "tessera.review.v1").map((e) => e.action);
    expect(reviewActions.filter((a) => a !== "tool_pinned")).toEqual(["held", "approved", "consumed"]);
    for (const e of events) {
      expect(Object.keys(e).slice(0, 3)).toEqual(["type", "id", "at"]);
      expect(JSON.stringify(e)).not.toContain(String(secret));
    }
  });
});
