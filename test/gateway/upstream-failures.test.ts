// Upstream failures become clear tool errors, and the gateway keeps serving afterwards.
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGateway } from "../../src/mcp/gateway/gateway.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import type { ReviewStore } from "../../src/review/types.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import {
  counted,
  type Running,
  startGateway,
  tempDir,
  TestClock,
  textOf,
  upstreamEnv,
  upstreamScript,
  verdictOf,
} from "./harness.js";
import { type GatewayPolicy, openGatewayPolicy } from "./policy.js";

let dir: string;
let cleanup: () => void;
let reviews: ReviewStore;
let policy: GatewayPolicy;
let gw: Running;

beforeEach(async () => {
  ({ dir, cleanup } = tempDir("gw-fail"));
  const clock = new TestClock();
  policy = await openGatewayPolicy(dir, clock.read);
  reviews = openSqliteReviewStore(join(dir, "gateway.db"));
  gw = await startGateway({
    dir,
    decide: policy.decide,
    describe: policy.describe,
    reviews,
    audit: policy.audit,
    clock,
    upstreamTimeoutMs: 400,
  });
});

afterEach(async () => {
  await gw.close();
  await reviews.close();
  await policy.close();
  cleanup();
});

const forwards = () => policy.events().filter((e) => e.type === "tessera.forward.v1");

describe("upstream failures", () => {
  it("a crashing upstream is a tool error; the next call starts a new upstream", async () => {
    const pidBefore = counted(join(dir, "counter.jsonl"));
    expect(pidBefore).toEqual([]);
    const r = await gw.call("crash");
    expect(r.isError).toBe(true);
    expect(verdictOf(r)).toMatchObject({ decision: "error", codes: ["upstream_closed"] });
    expect(textOf(r)).toMatch(/^the upstream failed \(upstream_closed\)/);
    const ok = await gw.call("echo", { text: "still here" });
    expect(ok.isError).toBeFalsy();
    expect(textOf(ok)).toBe("still here");
    const seen = counted(join(dir, "counter.jsonl"));
    expect(seen.map((c) => c.tool)).toEqual(["crash", "echo"]);
    expect(seen[0]!.pid).not.toBe(seen[1]!.pid);
    expect(forwards().map((e) => [e.outcome, e.error_code])).toEqual([
      ["upstream_failed", "upstream_closed"],
      ["ok", null],
    ]);
  });

  it("a hanging upstream times out as a tool error and keeps serving", async () => {
    const [hung, ok] = await Promise.all([gw.call("hang"), gw.call("echo", { text: "meanwhile" })]);
    expect(verdictOf(hung)).toMatchObject({ decision: "error", codes: ["upstream_timeout"] });
    expect(textOf(ok)).toBe("meanwhile");
    expect(textOf(await gw.call("echo", { text: "after" }))).toBe("after");
  });

  it("a malformed response is a tool error, and the next call works", async () => {
    const r = await gw.call("malformed");
    expect(verdictOf(r)).toMatchObject({ decision: "error", codes: ["upstream_malformed_response"] });
    expect(textOf(await gw.call("echo", { text: "next" }))).toBe("next");
  });

  it("a non-JSON line on the upstream's stdout is skipped", async () => {
    const r = await gw.call("garbage");
    expect(r.isError).toBeFalsy();
    expect(textOf(r)).toBe("after garbage");
    expect(textOf(await gw.call("echo", { text: "next" }))).toBe("next");
  });

  it("an upstream that cannot be restarted after a crash is a tool error, and the gateway still answers", async () => {
    let starts = 0;
    const flaky = await startGateway({
      dir,
      decide: policy.decide,
      describe: policy.describe,
      reviews,
      audit: policy.audit,
      upstream: {
        kind: "transport",
        create: () =>
          new StdioClientTransport(
            // the first connection learns the upstream's features; the second offers the client's (roots)
            starts++ <= 1
              ? { command: process.execPath, args: [upstreamScript], env: upstreamEnv(dir), stderr: "ignore" }
              : { command: join(dir, "gone"), args: [], stderr: "ignore" },
          ),
      },
    });
    try {
      expect(verdictOf(await flaky.call("crash"))!.codes).toEqual(["upstream_closed"]);
      for (let i = 0; i < 2; i++) {
        const r = await flaky.call("echo", { text: "x" });
        expect(verdictOf(r)).toMatchObject({ decision: "error", codes: ["upstream_unavailable"] });
        expect(textOf(r)).toMatch(/^the upstream failed \(upstream_unavailable\): cannot connect to the upstream/);
      }
      const decisions = policy.events().filter((e) => e.type === "tessera.decision.v1" && e.tool === "echo");
      expect(decisions.map((e) => [e.decision, e.reason, e.action])).toEqual([
        ["block", "upstream_unavailable", "reject"],
        ["block", "upstream_unavailable", "reject"],
      ]);
      expect(starts).toBe(4);
    } finally {
      await flaky.close();
    }
  });

  it("an upstream that cannot start is a clear error at startup", async () => {
    const failing = createGateway({
      upstream: { kind: "stdio", command: join(dir, "no-such-server"), args: [], stderr: "ignore" },
      decide: policy.decide,
      reviews,
      audit: policy.audit,
      upstreamTimeoutMs: 2_000,
    });
    await expect(failing).rejects.toMatchObject({ code: "upstream_unavailable" });
  });
});
