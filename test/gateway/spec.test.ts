// Pins specs/gateway.md: every row of its tables is checked against the code or a running gateway.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GatewayErrorCode } from "../../src/mcp/gateway/gateway.js";
import { holdKindOf } from "../../src/mcp/gateway/reasons.js";
import type { UpstreamErrorCode } from "../../src/mcp/gateway/upstream.js";
import { approveReview, approveTool, denyReview } from "../../src/review/actions.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import { HOLD_KIND_TEXT, REVIEW_STATES, type ReviewStore } from "../../src/review/types.js";
import { specTable } from "../core/spec-tables.js";
import { counted, type Running, startGateway, tempDir, TestClock, verdictOf } from "./harness.js";
import { type GatewayPolicy, openGatewayPolicy } from "./policy.js";

// Record<Union, true>: adding a code to a union without listing it here fails the type check
const ALL_CODES: Record<GatewayErrorCode | UpstreamErrorCode, true> = {
  tool_not_listed: true,
  tool_definition_changed: true,
  input_too_large: true,
  gate_error: true,
  gateway_error: true,
  tools_call_notification: true,
  argument_undeclared: true,
  argument_shadowed: true,
  review_denied: true,
  upstream_unavailable: true,
  upstream_closed: true,
  upstream_timeout: true,
  upstream_malformed_response: true,
  upstream_error: true,
};

describe("specs/gateway.md", () => {
  it("lists every tool error code the gateway gives", () => {
    const t = specTable("gateway.md", "Tool error codes");
    expect(t.header).toEqual(["code", "when"]);
    expect(t.rows.map((r) => r[0]).sort()).toEqual(Object.keys(ALL_CODES).sort());
  });

  it("explains each hold kind as the review command does", () => {
    const t = specTable("gateway.md", "Why a call is held");
    expect(t.rows).toEqual([
      [
        "mismatch",
        holdKindOf({ argument: "a", check: 0, source: "s", status: "mismatch", outcome: "hold" }),
        HOLD_KIND_TEXT.needs_judgment,
      ],
      [
        "error",
        holdKindOf({ argument: "a", check: 0, source: "s", status: "error", outcome: "hold" }),
        HOLD_KIND_TEXT.verification_unavailable,
      ],
    ]);
  });

  it("lists every review state", () => {
    expect(specTable("gateway.md", "Review states").rows.map((r) => r[0])).toEqual([...REVIEW_STATES]);
  });

  describe("against a running gateway", () => {
    let dir: string;
    let cleanup: () => void;
    let policy: GatewayPolicy;
    let reviews: ReviewStore;
    let gw: Running;
    const clock = new TestClock();

    beforeAll(async () => {
      ({ dir, cleanup } = tempDir("gw-spec"));
      policy = await openGatewayPolicy(dir, clock.read);
      reviews = openSqliteReviewStore(join(dir, "gateway.db"));
      gw = await startGateway({
        dir,
        decide: policy.decide,
        describe: policy.describe,
        reviews,
        audit: policy.audit,
        clock,
        policyDigest: policy.digest,
      });
    });
    afterAll(async () => {
      await gw.close();
      await reviews.close();
      await policy.close();
      cleanup();
    });

    it("does what each step of the tools/call table says", async () => {
      const t = specTable("gateway.md", "What happens to a tools/call");
      expect(t.header).toEqual(["step", "condition", "verdict", "reaches upstream", "result"]);
      const reached = () => counted(join(dir, "counter.jsonl")).length;
      const scenarios: Record<string, () => Promise<{ verdict: string; reached: number }>> = {
        "0": async () => {
          let deep: unknown = 0;
          for (let i = 0; i < 33; i++) deep = [deep];
          return run({ order_id: policy.orders.allowed, deep });
        },
        "1": async () => {
          const before = reached();
          const v = verdictOf(await gw.call("not_a_tool"))!;
          return { verdict: v.decision, reached: reached() - before };
        },
        "2": async () => {
          await gw.client.listTools();
          writeFileSync(join(dir, "variant.txt"), "changed");
          await gw.client.listTools();
          const before = reached();
          const v = verdictOf(await gw.call("refund_order", { order_id: policy.orders.allowed }))!;
          const n = reached() - before;
          const changed = (await reviews.tools()).find((p) => p.tool === "refund_order")!.pending_digest!;
          await approveTool(reviews, policy.audit, "refund_order", changed, "spec", clock.now);
          return { verdict: v.decision, reached: n };
        },
        "3": async () => run({ order_id: policy.orders.allowed, REQUEST: "three" }),
        "4": async () => run({ order_id: policy.orders.allowed }),
        "5": async () => run({ order_id: policy.orders.blocked }),
        "6": async () => {
          const id = verdictOf(await gw.call("refund_order", { order_id: policy.orders.held, request: "five" }))!
            .review_id!;
          await approveReview(reviews, policy.audit, id, "spec", clock.now);
          return run({ order_id: policy.orders.held, request: "five" });
        },
        "7": async () => {
          const id = verdictOf(await gw.call("refund_order", { order_id: policy.orders.held, request: "seven" }))!
            .review_id!;
          await denyReview(reviews, policy.audit, id, "spec", clock.now, "not this one");
          return run({ order_id: policy.orders.held, request: "seven" });
        },
        "8": async () => run({ order_id: policy.orders.held, request: "six" }),
      };
      async function run(args: Record<string, unknown>) {
        const before = reached();
        const v = verdictOf(await gw.call("refund_order", args))!;
        return { verdict: v.decision, reached: reached() - before };
      }
      for (const [step, , verdict, reaches] of t.rows) {
        const got = await scenarios[step!]!();
        expect({ step, ...got }).toEqual({ step, verdict, reached: reaches!.startsWith("yes") ? 1 : 0 });
      }
      expect(t.rows.map((r) => r[0])).toEqual(Object.keys(scenarios));
    });

    it("writes events with exactly the keys, in the order, of the audit events table", () => {
      const t = specTable("gateway.md", "Audit events");
      const keysOf = new Map(t.rows.map((r) => [r[0]!, r[1]!.split(",").map((k) => k.trim())]));
      const events = policy.events();
      const types = new Set(events.map((e) => e.type));
      expect([...types].sort()).toEqual([...keysOf.keys()].sort());
      for (const e of events) {
        const want = [...keysOf.get(e.type)!];
        if (e.type === "tessera.decision.v1" && "reason" in e)
          want.splice(want.indexOf("context_digest") + 1, 0, "reason");
        expect({ type: e.type, keys: Object.keys(e) }).toEqual({ type: e.type, keys: want });
      }
      const actions = new Set(events.filter((e) => e.type === "tessera.review.v1").map((e) => e.action));
      expect([...actions].sort()).toEqual([
        "approved",
        "consumed",
        "denied",
        "held",
        "tool_approved",
        "tool_changed",
        "tool_pinned",
      ]);
      expect(events.some((e) => e.reason === "tool_definition_changed")).toBe(true);
    });
  });
});
