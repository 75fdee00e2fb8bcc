// Shared helpers for the MCP tests: a real SDK Client over stdio or Streamable HTTP against
// `node dist/cli/main.js mcp`, and the CLI run as a process.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
export const cliPath = join(root, "dist", "cli", "main.js");

/** A long enough bearer token for the HTTP tests. */
export const TOKEN = "test-token-0123456789abcdef";

/** Run the CLI to completion. */
export function cli(args: string[], options: { env?: Record<string, string>; input?: string } = {}) {
  const r = spawnSync(process.execPath, [cliPath, ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    input: options.input ?? "",
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A connected client and what the server printed on stderr. */
export interface Session {
  readonly client: Client;
  stderr(): string;
  close(): Promise<void>;
}

/** Spawn `tessera mcp <args>` and connect an SDK client over stdio. */
export async function stdioSession(args: string[], env: Record<string, string> = {}): Promise<Session> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, "mcp", ...args],
    cwd: root,
    env: { ...(process.env as Record<string, string>), ...env },
    stderr: "pipe",
  });
  let err = "";
  transport.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString("utf8");
  });
  const client = new Client({ name: "tessera-test", version: "0.0.0" });
  await client.connect(transport);
  return { client, stderr: () => err, close: () => client.close() };
}

/** A `tessera mcp --http` process and its URL. */
export interface HttpServerProcess {
  readonly url: string;
  readonly port: number;
  readonly child: ChildProcess;
  stderr(): string;
  stop(): Promise<number | null>;
}

/** Spawn `tessera mcp --http --port 0 <args>` and wait for the URL it announces on stderr. */
export async function startHttp(
  args: string[],
  env: Record<string, string> = { TESSERA_MCP_TOKEN: TOKEN },
): Promise<HttpServerProcess> {
  const child = spawn(process.execPath, [cliPath, "mcp", "--http", "--port", "0", ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  let out = "";
  child.stdout.on("data", (c: Buffer) => (out += c.toString("utf8")));
  const url = await new Promise<string>((resolve, reject) => {
    child.stderr.on("data", (c: Buffer) => {
      err += c.toString("utf8");
      const m = /at (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(err);
      if (m) resolve(m[1]!);
    });
    child.once("exit", (code) => reject(new Error(`tessera mcp --http exited ${code}: ${err}${out}`)));
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    url,
    port: Number(new URL(url).port),
    child,
    stderr: () => err,
    async stop() {
      child.kill("SIGTERM");
      return exited;
    },
  };
}

/** Connect an SDK client over Streamable HTTP with the given headers. */
export async function httpClient(
  url: string,
  headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}` },
): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
  const client = new Client({ name: "tessera-test", version: "0.0.0" });
  await client.connect(transport);
  return client;
}

/** Call a tool and return the result with the fields the tests read. */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The stable code of a tool error (`_meta["tessera/error"].code`), checked against the text prefix. */
export function errorCode(result: CallToolResult): string | undefined {
  if (result.isError !== true) return undefined;
  const meta = result._meta?.["tessera/error"] as { code: string } | undefined;
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  if (meta === undefined || !text.startsWith(`${meta.code}: `))
    throw new Error(`tool error without a coded text: ${text}`);
  return meta.code;
}
