// `tessera mcp --policy` reloads its policy on SIGHUP and when the file is saved (adr/0130), as the
// gateway does: `check_tool_call` decides by the new policy once stderr says it was reloaded, and a
// policy in shadow mode is announced on the same line.
import { copyFileSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, expect, it } from "vitest";
import { cliPath, root } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "tessera-mcp-reload-"));
const policyText = readFileSync(join(root, "examples/refunds/policy.yaml"), "utf8");
let client: Client | undefined;

afterAll(async () => {
  await client?.close();
});

it("decides by a saved policy once it is reloaded, and says when the new one is in shadow mode", async () => {
  copyFileSync(join(root, "examples/refunds/billing.db"), join(dir, "billing.db"));
  writeFileSync(join(dir, "policy.yaml"), policyText);
  writeFileSync(join(dir, "context.json"), JSON.stringify({ customer_id: "c-1" }));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [cliPath, "mcp", "--policy", join(dir, "policy.yaml"), "--context", join(dir, "context.json")],
    cwd: root,
    env: { PATH: process.env.PATH ?? "" },
    stderr: "pipe",
  });
  let reloaded: (line: string) => void = () => undefined;
  const seen = new Promise<string>((resolve) => {
    reloaded = resolve;
  });
  (transport.stderr as Readable).setEncoding("utf8").on("data", (chunk: string) => {
    const line = chunk.split("\n").find((l) => l.startsWith("tessera mcp: reloaded the policy: "));
    if (line !== undefined) reloaded(line);
  });
  client = new Client({ name: "reload-test", version: "1.0.0" });
  await client.connect(transport);
  const check = async () => {
    const r = (await client!.callTool({
      name: "check_tool_call",
      arguments: { tool: "refund_order", arguments: { order_id: 1003, amount_cents: 100 } },
    })) as CallToolResult;
    return r.structuredContent as { decision: string; policy_digest: string; enforced?: boolean };
  };
  const before = await check();
  expect([before.decision, before.enforced]).toEqual(["block", undefined]);
  writeFileSync(join(dir, "policy.yaml.new"), policyText.replace(/^version: 1$/m, "version: 1\nmode: shadow"));
  renameSync(join(dir, "policy.yaml.new"), join(dir, "policy.yaml"));
  const line = await seen;
  expect(line).toMatch(
    new RegExp(
      `^tessera mcp: reloaded the policy: ${before.policy_digest} -> sha256:[0-9a-f]{64}; the whole policy is in shadow mode: `,
    ),
  );
  const after = await check();
  expect([after.decision, after.enforced]).toEqual(["block", false]);
  expect(after.policy_digest).not.toBe(before.policy_digest);
});
