// A tools/call sent as a JSON-RPC notification (no `id`) or with `id: null` has no answer the
// gateway could give, so it is never grounded; it must then never reach the upstream either. The
// counting upstream records every message as it arrived ($RAW_FILE), before its SDK parses it, so a
// lax upstream that would act on such a message is what these tests watch.
import { spawn, spawnSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server as HttpServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createGateway, type Gateway } from "../../src/mcp/gateway/gateway.js";
import { openSqliteReviewStore } from "../../src/review/sqlite.js";
import {
  cliPath,
  gatewayProcess,
  tempDir,
  TestClock,
  textOf,
  upstreamEnv,
  upstreamScript,
  verdictOf,
} from "./harness.js";
import { openGatewayPolicy, writePolicy } from "./policy.js";

let dir: string;
let cleanup: () => void;
const closers: (() => Promise<unknown> | unknown)[] = [];

beforeEach(() => {
  ({ dir, cleanup } = tempDir("gw-notify"));
});
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  cleanup();
});

const env = () => ({ ...upstreamEnv(dir), RAW_FILE: join(dir, "raw.jsonl") });

/** The method and params of every tools/call message the upstream received, as it received them. */
function toolCallsReceived(): { id: unknown; name: unknown }[] {
  const file = join(dir, "raw.jsonl");
  if (!existsSync(file)) return [];
  const out: { id: unknown; name: unknown }[] = [];
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (line === "") continue;
    const raw = (JSON.parse(line) as { raw: string }).raw;
    const parsed = JSON.parse(raw) as unknown;
    for (const m of (Array.isArray(parsed) ? parsed : [parsed]) as Record<string, unknown>[]) {
      if (m.method === "tools/call") out.push({ id: m.id, name: (m.params as { name?: unknown }).name });
    }
  }
  return out;
}

const asNotification = (order_id: number): JSONRPCMessage => ({
  jsonrpc: "2.0",
  method: "tools/call",
  params: { name: "refund_order", arguments: { order_id } },
});
const withNullId = (order_id: number) => ({ ...asNotification(order_id), id: null }) as unknown as JSONRPCMessage;

/** The counting upstream serving Streamable HTTP on 127.0.0.1, once it says its port. */
async function httpUpstream(): Promise<string> {
  const upstream = spawn(process.execPath, [upstreamScript, "--http"], {
    env: env(),
    stdio: ["pipe", "pipe", "ignore"],
  });
  closers.push(() => upstream.kill());
  const port = await new Promise<string>((resolve, reject) => {
    upstream.stdout
      .setEncoding("utf8")
      .once("data", (line: string) => resolve(/listening (\d+)/.exec(line)?.[1] ?? ""));
    upstream.once("exit", () => reject(new Error("the http upstream exited")));
  });
  return `http://127.0.0.1:${port}/mcp`;
}

describe("tessera gateway (stdio) never forwards a tools/call it cannot answer", () => {
  async function startGatewayProcess(upstream: string[]) {
    writePolicy(dir, 20);
    const store = join(dir, "gateway.db");
    const transport = gatewayProcess(dir, store, { upstream, env: env() });
    let stderr = "";
    const waiters: (() => void)[] = [];
    transport.stderr!.on("data", (chunk: Buffer) => {
      stderr += chunk.toString("utf8");
      for (const wake of waiters.splice(0)) wake();
    });
    const client = new Client({ name: "notify-test", version: "1.0.0" });
    client.onerror = () => undefined; // the answer to the `id: null` message matches no request
    await client.connect(transport);
    closers.push(() => client.close());
    /** Resolves once stderr has a line matching `re`. */
    const logged = async (re: RegExp) => {
      while (!re.test(stderr)) await new Promise<void>((resolve) => waiters.push(resolve));
      return stderr;
    };
    const audit = () =>
      spawnSync(process.execPath, [cliPath, "audit", "export", "--jsonl", "--store", store], { encoding: "utf8" })
        .stdout.split("\n")
        .filter((l) => l !== "")
        .map((l) => JSON.parse(l) as Record<string, unknown>);
    return { client, transport, logged, audit };
  }

  it.each([
    ["a stdio upstream", () => Promise.resolve(["--", process.execPath, upstreamScript])],
    ["a Streamable HTTP upstream", async () => ["--upstream-url", await httpUpstream()]],
  ])("drops a tools/call notification and one with `id: null`, and logs both, in front of %s", async (_, upstream) => {
    const { client, transport, logged, audit } = await startGatewayProcess(await upstream());
    await client.listTools(); // the tools are pinned: a forwarded call would be grounded, not refused unlisted
    await transport.send(asNotification(1));
    await transport.send(withNullId(1));
    const after = (await client.callTool({ name: "echo", arguments: { text: "after" } })) as CallToolResult;
    expect(textOf(after)).toBe("after");
    // the echo went to the upstream after both: had either been forwarded, the upstream holds it by now
    expect(toolCallsReceived()).toEqual([{ id: expect.any(Number), name: "echo" }]);
    await logged(/dropped a tools\/call notification/);
    await logged(/`id` must be a string or an integer/);
    const drops = audit().filter((e) => e.action === "drop");
    expect(drops).toEqual([
      expect.objectContaining({
        type: "tessera.decision.v1",
        tool: "refund_order",
        decision: "block",
        reason: "tools_call_notification",
        action: "drop",
        codes: ["tools_call_notification"],
      }),
    ]);
  });
});

describe("the gateway served over Streamable HTTP never forwards a tools/call it cannot answer", () => {
  it("drops a tools/call notification (202, audited) and refuses one with `id: null` (400)", async () => {
    const clock = new TestClock();
    const policy = await openGatewayPolicy(dir, clock.read);
    closers.push(() => policy.close());
    const reviews = openSqliteReviewStore(join(dir, "gateway.db"));
    closers.push(() => reviews.close());
    const diagnostics: string[] = [];
    const gateway: Gateway = await createGateway({
      upstream: { kind: "stdio", command: process.execPath, args: [upstreamScript], env: env(), stderr: "ignore" },
      decide: policy.decide,
      describe: policy.describe,
      reviews,
      audit: policy.audit,
      clock: clock.read,
      policyDigest: policy.digest,
      onDiagnostic: (line) => diagnostics.push(line),
    });
    closers.push(() => gateway.close());
    const serverTransport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID });
    await gateway.connect(serverTransport);
    const http: HttpServer = createServer((req, res) => void serverTransport.handleRequest(req, res));
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => http.close(resolve)));
    const url = new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`);
    const clientTransport = new StreamableHTTPClientTransport(url);
    const client = new Client({ name: "notify-test", version: "1.0.0" });
    await client.connect(clientTransport);
    closers.push(() => client.close());

    await client.listTools();
    await clientTransport.send(asNotification(1)); // accepted with 202: a notification has no answer
    await expect(clientTransport.send(withNullId(1))).rejects.toThrow(/Invalid JSON-RPC message/);
    const after = (await client.callTool({ name: "refund_order", arguments: { order_id: 1 } })) as CallToolResult;
    expect(verdictOf(after)?.decision).toBe("forward");
    expect(toolCallsReceived()).toEqual([{ id: expect.any(Number), name: "refund_order" }]);
    expect(diagnostics).toEqual([
      expect.stringMatching(/^tessera gateway: dropped a tools\/call notification for `refund_order` /),
      "tessera gateway: Parse error: Invalid JSON-RPC message", // the transport's answer to `id: null`
    ]);
    const drops = policy.events().filter((e) => e.action === "drop");
    expect(drops).toHaveLength(1);
    expect(drops[0]).toMatchObject({ tool: "refund_order", decision: "block", codes: ["tools_call_notification"] });
  });
});
