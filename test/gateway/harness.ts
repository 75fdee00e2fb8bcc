// Shared pieces of the gateway tests: the counting upstream, an in-process gateway with an injected
// clock (client ↔ gateway in memory, gateway ↔ upstream over real stdio), and readers for what
// reached the upstream.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { type CallToolResult, ListRootsRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import {
  createGateway,
  type Gateway,
  GATEWAY_META_KEY,
  type GatewayOptions,
  type GatewayVerdict,
} from "../../src/mcp/gateway/gateway.js";
import type { AuditSink, Decide } from "../../src/mcp/gateway/types.js";
import type { UpstreamSpec } from "../../src/mcp/gateway/upstream.js";
import type { ReviewStore } from "../../src/review/types.js";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const cliPath = join(root, "dist", "cli", "main.js");
export const upstreamScript = join(root, "test", "fixtures", "upstream-counter-server.mjs");

/** A temporary folder, removed by `cleanup`. */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), `tessera-${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** One tools/call the upstream received. */
export interface Counted {
  readonly pid: number;
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
}

/** Every tools/call the counting upstream received, in order. */
export function counted(counterFile: string): Counted[] {
  if (!existsSync(counterFile)) return [];
  return readFileSync(counterFile, "utf8")
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => JSON.parse(l) as Counted);
}

/** The environment the counting upstream needs. */
export function upstreamEnv(dir: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    COUNTER_FILE: join(dir, "counter.jsonl"),
    VARIANT_FILE: join(dir, "variant.txt"),
  };
}

/** A controllable clock. */
export class TestClock {
  constructor(public now = Date.parse("2026-11-30T05:00:00Z")) {}
  readonly read = () => this.now;
  advance(ms: number): void {
    this.now += ms;
  }
}

/** The gateway's verdict in a result it produced itself. */
export function verdictOf(result: CallToolResult): GatewayVerdict | undefined {
  return result._meta?.[GATEWAY_META_KEY] as GatewayVerdict | undefined;
}

/** The first text block of a result. */
export function textOf(result: CallToolResult): string {
  const first = result.content[0];
  return first !== undefined && first.type === "text" ? first.text : "";
}

/** A running in-process gateway with a connected client. */
export interface Running {
  readonly gateway: Gateway;
  readonly client: Client;
  call(tool: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** Start a gateway in front of the counting upstream and connect a client to it in memory. */
export async function startGateway(options: {
  dir: string;
  decide: Decide;
  describe?: GatewayOptions["describe"];
  reviews: ReviewStore;
  audit: AuditSink;
  clock?: TestClock;
  approvalTtlMs?: number;
  reviewTtlMs?: number;
  upstreamTimeoutMs?: number;
  policyDigest?: string;
  contextDigest?: string;
  undeclaredArguments?: GatewayOptions["undeclaredArguments"];
  effectiveDigest?: string;
  upstream?: UpstreamSpec;
  /** Any other gateway option (`holdWait`, `notify`, `onDiagnostic`, …), as given. */
  extra?: Partial<GatewayOptions>;
}): Promise<Running> {
  const gateway = await createGateway({
    upstream: options.upstream ?? {
      kind: "stdio",
      command: process.execPath,
      args: [upstreamScript],
      env: upstreamEnv(options.dir),
      stderr: "ignore",
    },
    decide: options.decide,
    ...(options.describe ? { describe: options.describe } : {}),
    reviews: options.reviews,
    audit: options.audit,
    ...(options.clock ? { clock: options.clock.read } : {}),
    ...(options.approvalTtlMs ? { approvalTtlMs: options.approvalTtlMs } : {}),
    ...(options.reviewTtlMs ? { reviewTtlMs: options.reviewTtlMs } : {}),
    ...(options.upstreamTimeoutMs ? { upstreamTimeoutMs: options.upstreamTimeoutMs } : {}),
    ...(options.policyDigest ? { policyDigest: options.policyDigest } : {}),
    ...(options.contextDigest ? { contextDigest: options.contextDigest } : {}),
    ...(options.undeclaredArguments ? { undeclaredArguments: options.undeclaredArguments } : {}),
    ...(options.effectiveDigest ? { effectiveDigest: options.effectiveDigest } : {}),
    ...options.extra,
  });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await gateway.connect(serverSide);
  // the agent offers roots, so the upstream's requests to the client can be seen passing through
  const client = new Client({ name: "test-agent", version: "1.0.0" }, { capabilities: { roots: {} } });
  client.setRequestHandler(ListRootsRequestSchema, async () => ({
    roots: [{ uri: "file:///work/agent", name: "agent" }],
  }));
  await client.connect(clientSide);
  return {
    gateway,
    client,
    call: async (tool, args = {}) => (await client.callTool({ name: tool, arguments: args })) as CallToolResult,
    async close() {
      await client.close();
      await gateway.close();
    },
  };
}

/**
 * `tessera gateway` as a process over stdio, with `dir`'s policy.yaml and context.json, in front of
 * the counting upstream (or `upstream`, the arguments after the options), storing in `store`.
 */
export function gatewayProcess(
  dir: string,
  store: string,
  options: {
    extra?: readonly string[];
    upstream?: readonly string[];
    env?: Record<string, string>;
    stderr?: "pipe" | "ignore";
  } = {},
): StdioClientTransport {
  return new StdioClientTransport({
    command: process.execPath,
    args: [
      cliPath,
      "gateway",
      "--policy",
      join(dir, "policy.yaml"),
      "--context",
      join(dir, "context.json"),
      "--store",
      store,
      ...(options.extra ?? []),
      ...(options.upstream ?? ["--", process.execPath, upstreamScript]),
    ],
    env: options.env ?? upstreamEnv(dir),
    cwd: root,
    stderr: options.stderr ?? "pipe",
  });
}
