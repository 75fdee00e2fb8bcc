// The gateway as a library: everything `tessera gateway` wires together is reachable from the
// `tessera-trust/mcp` subpath (built dist, as a user imports it), composed with the root's createGate.
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, expect, it } from "vitest";
import { counted, tempDir, textOf, upstreamEnv, upstreamScript } from "./harness.js";
import { CONTEXT, writePolicy } from "./policy.js";

const { dir, cleanup } = tempDir("gw-library");
afterAll(cleanup);

it("createGateway, openGatewayStore and approveReview from `tessera-trust/mcp` hold, approve and forward a call once", async () => {
  const mcp = await import("../../dist/mcp/index.js");
  const root = await import("../../dist/index.js");
  const gate = root.createGate(await root.loadPolicy(writePolicy(dir, 4)));
  const store = await mcp.openGatewayStore(join(dir, "gateway.db"));
  const gateway = await mcp.createGateway({
    upstream: {
      kind: "stdio",
      command: process.execPath,
      args: [upstreamScript],
      env: upstreamEnv(dir),
      stderr: "ignore",
    },
    decide: (call) => gate.check(call, CONTEXT),
    reviews: store.reviews,
    audit: store.audit,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(serverSide);
  const client = new Client({ name: "library-user", version: "1.0.0" });
  await client.connect(clientSide);
  try {
    const call = async () =>
      (await client.callTool({ name: "refund_order", arguments: { order_id: 3 } })) as CallToolResult;
    const held = await call();
    const verdict = held._meta?.[mcp.GATEWAY_META_KEY] as { decision: string; review_id: string };
    expect(verdict.decision).toBe("hold");
    await mcp.approveReview(store.reviews, store.audit, verdict.review_id, "ada", Date.now());
    expect(textOf(await call())).toBe("refunded 3");
    expect((await call()).isError).toBe(true);
    expect(counted(join(dir, "counter.jsonl")).map((c) => c.arguments)).toEqual([{ order_id: 3 }]);
  } finally {
    await client.close();
    await gateway.close();
    await gate.close();
    await store.close();
  }
});

it("createGateway refuses a review or approval TTL that is not a positive whole number of milliseconds, before starting the upstream", async () => {
  const mcp = await import("../../dist/mcp/index.js");
  const options = {
    upstream: { kind: "stdio" as const, command: join(dir, "no-such-upstream"), args: [] },
    decide: () => Promise.reject(new Error("unused")),
    reviews: {} as never,
    audit: {} as never,
  };
  await expect(mcp.createGateway({ ...options, reviewTtlMs: 0 })).rejects.toMatchObject({
    code: "invalid_ttl",
    message: "review ttl must be a positive number of milliseconds, got `0`",
  });
  await expect(mcp.createGateway({ ...options, approvalTtlMs: Number.NaN })).rejects.toMatchObject({
    code: "invalid_ttl",
    message: "approval ttl must be a positive number of milliseconds, got `NaN`",
  });
});
